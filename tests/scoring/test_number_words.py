"""The shared number formatters (app.scoring.explain): every number a person reads, one way."""

import pytest

from app.scoring.explain import fixed, signed, significant, usd_amount


def test_fixed_never_writes_a_negative_zero():
    assert fixed(-0.0, 1) == "0.0"
    assert fixed(-0.0, 0) == "0"
    assert fixed(-0.04, 1) == "-0.04"  # a small non-zero value keeps its sign and two figures


@pytest.mark.parametrize(
    ("value", "figures", "text"),
    [
        (1e6, 6, "1,000,000"),  # :g wrote 1e+06
        (1234567.0, 6, "1,234,570"),  # :g wrote 1.23457e+06
        (12345.0, 3, "12,300"),  # :.3g wrote 1.23e+04
        (0.00001, 6, "0.00001"),  # :g wrote 1e-05
        (0.1282, 6, "0.1282"),
        (2.5, 6, "2.5"),
        (400.0, 6, "400"),
        (999.96, 3, "1,000"),
        (-1500.0, 6, "-1,500"),
        (-0.0, 6, "0"),
        (0.0, 3, "0"),
    ],
)
def test_significant_writes_g_figures_without_an_exponent(value, figures, text):
    assert significant(value, figures) == text


def test_signed_writes_the_sign_except_on_zero():
    assert signed(12.46, 1) == "+12.5"
    assert signed(-3.0, 1) == "-3.0"
    assert signed(-0.0, 1) == "0.0"
    assert signed(0.0, 0) == "0"
    assert signed(-0.004, 0) == "-0.004"  # non-zero never reads 0


def test_usd_amount_is_whole_dollars_from_ten_and_cents_below():
    assert usd_amount(71772.01) == "$71,772"
    assert usd_amount(56000.0) == "$56,000"
    assert usd_amount(9.994) == "$9.99"
    assert usd_amount(0.11) == "$0.11"
    assert usd_amount(0.0004) == "$0.0004"


def test_cli_table_cells_group_thousands_and_never_write_an_exponent():
    from app.cli.tables.writer import rounded, table

    text = table(["tok/s", "replicas", "h", "tiny"], [[12450.7, 1496, 0.6962, 0.00001234]])
    row = text.splitlines()[2]
    assert "12,450.7" in row and "1,496" in row and "0.6962" in row and "0.00001234" in row
    assert "e-05" not in row
    assert rounded(317000.0, 2) == "317,000.00"  # the own CLI's purchase term read 317000.00


def test_money_places_drop_places_a_large_price_does_not_need_but_keep_cents():
    from app.scoring.explain import money_places

    assert fixed(19.952, money_places(19.952, 3)) == "19.95"  # a $/M price read $19.952
    assert fixed(21.6161, money_places(21.6161, 4)) == "21.62"  # a $/step read $21.6161
    assert fixed(0.179, money_places(0.179, 3)) == "0.179"
    assert fixed(0.0117, money_places(0.0117, 4)) == "0.0117"
    assert money_places(1234.5, 0) == 0  # whole dollars stay whole
    assert money_places(2.0, 2) == 2
