"""Offer prices in the catalog: public price catalogs translated into offers.csv rows (price_formats), price
updates from a CSV file or the admin API (price_import), and each GPU's "from" prices as the pages show them
(price_floors)."""
