"""Joining per-configuration estimates to priced offers, shared by both rankings."""

from __future__ import annotations

import heapq
from abc import abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from datetime import date
from typing import Generic, NamedTuple, TypedDict, TypeVar, overload

from app.scoring.hardware.machines import Machine, machine_of
from app.scoring.pricing.price_terms import INTERRUPTIBLE, price_caveats
from app.scoring.pricing.snapshot_memo import MemoKind
from app.scoring.specs import PRICE_TYPES, CatalogSnapshot, GpuSpec, Offer
from app.scoring.workload import Filters

T = TypeVar("T")

OFFERS: MemoKind[list[Offer]] = MemoKind("offers")  # snapshot_offers per (cheapest per provider, filter key)


DEFAULT_PRICE_TYPES = frozenset({"on_demand"})  # what a buyer can act on today at terms they accept by default


def matching_offers(offers: Iterable[Offer], gpus: dict[str, GpuSpec], filters: Filters) -> list[Offer]:
    """Offers allowed by the workload's provider, price-type, GPU and vendor filters.

    By default only on-demand offers that are not stale: spot (interruptible), reserved (a commitment),
    marketplace and capacity blocks, and stale prices, are ranked only when the workload asks for them. A list price
    of a shape not sold on its terms (Offer.unsold) is never ranked: nobody can rent it at that price. Nor is a price a
    newer one of the same offer replaced (Offer.superseded), stale prices asked for or not: only an offer's latest
    price is one it can be rented at.
    A training workload never matches a managed inference endpoint (Offer.inference_endpoint).
    """
    providers = {p.lower() for p in filters.providers}
    gpu_ids = {g.lower() for g in filters.gpus}
    vendors = {v.lower() for v in filters.vendors}
    price_types = set(filters.price_types) or DEFAULT_PRICE_TYPES
    kept = []
    for offer in offers:
        gpu = gpus.get(offer.gpu_id)
        if gpu is None:
            continue
        if offer.unsold or offer.superseded or offer.price_type not in price_types:
            continue
        if offer.stale and not filters.include_stale:
            continue
        if filters.trains and offer.inference_endpoint:
            continue
        if providers and offer.provider_id.lower() not in providers:
            continue
        if gpu_ids and offer.gpu_id.lower() not in gpu_ids:
            continue
        if vendors and gpu.vendor.lower() not in vendors:
            continue
        kept.append(offer)
    return kept


def left_out_note(offers: Sequence[Offer], gpus: dict[str, GpuSpec], filters: Filters) -> str:
    """The offers of the filters' providers, GPUs and vendors that their price terms or stale (or undated) prices
    left out, which are ranked only when asked for ('' when none were): said where nothing could run, whether no
    offer matched or those that did cannot serve (70B BF16 on AMD: one current 1-GPU offer, stale 8-GPU ones)."""
    loose = filters.model_copy(update={"price_types": list(PRICE_TYPES), "include_stale": True})
    kept = {id(o) for o in matching_offers(offers, gpus, filters)}
    near = [o for o in matching_offers(offers, gpus, loose) if id(o) not in kept]
    if not near:
        return ""
    price_types = set(filters.price_types) or DEFAULT_PRICE_TYPES
    stale = [o for o in near if o.stale and (o.price_type in price_types)]
    undated = sum(1 for o in stale if o.as_of is None)
    other_terms: dict[str, int] = {}
    for offer in near:
        if offer.price_type not in price_types:
            other_terms[offer.price_type] = other_terms.get(offer.price_type, 0) + 1
    parts = []
    if stale:
        kind = f"stale ({undated} undated)" if undated else "stale"
        parts.append(f"{len(stale)} {'is' if len(stale) == 1 else 'are'} {kind}: include_stale ranks them, labelled")
    for term, n in sorted(other_terms.items()):
        parts.append(f"{n} {'is' if n == 1 else 'are'} priced {term.replace('_', ' ')}: add {term} to price_types")
    more = " more" if kept else ""
    return f"{len(near)}{more} would match without the price-term and staleness filters: " + "; ".join(parts) + "."


class OfferFields(TypedDict):
    provider: str
    provider_name: str
    price_type: str
    price_note: str
    price_caveats: tuple[str, ...]
    price_source_url: str
    stale: bool
    interruptible: bool
    usd_per_gpu_hour: float
    as_of: date | None
    offer_id: int | None
    instance_type: str
    region: str


# Ranked-row fields that are the offer's own, unchanged (a sorted view reads them without building the row).
ROW_OFFER_FIELDS = frozenset({"gpu_id", "provider_name", "usd_per_gpu_hour"})


def offer_fields(offer: Offer, layout_caveat: str = "") -> OfferFields:
    """What an offer puts on every ranked row (feasible or not, inference or training): who sells it, which instance
    where (as the catalog names them, so a buyer rents the machine ranked), at what price and terms (with the caveats
    a buyer must see: its price note's, then what the row's layout assumes of the offer, machines.shared_rack_caveat),
    read when and where."""
    return OfferFields(
        provider=offer.provider_id,
        provider_name=offer.provider_name,
        price_type=offer.price_type,
        price_note=offer.price_note,
        price_caveats=price_caveats(offer.price_note) + ((layout_caveat,) if layout_caveat else ()),
        price_source_url=offer.source_url,
        stale=offer.stale,
        interruptible=offer.price_type in INTERRUPTIBLE,
        usd_per_gpu_hour=offer.usd_per_gpu_hour,
        as_of=offer.as_of,
        offer_id=offer.offer_id,
        instance_type=offer.instance_type,
        region=offer.region,
    )


def with_assumption(assumptions: list[str], sentence: str) -> list[str]:
    """A row's assumptions with one more of its own ('' adds none), before the band's evidence, which stays last."""
    if not sentence:
        return assumptions
    return [*assumptions[:-1], sentence, *assumptions[-1:]]


def cheapest_offer_per_provider(offers: Iterable[Offer]) -> list[Offer]:
    """One offer per (GPU, provider, price type): the cheapest per GPU-hour."""
    best: dict[tuple[str, str, str], Offer] = {}
    for offer in offers:
        key = (offer.gpu_id, offer.provider_id, offer.price_type)
        if key not in best or offer.usd_per_gpu_hour < best[key].usd_per_gpu_hour:
            best[key] = offer
    return list(best.values())


def filter_key(filters: Filters) -> tuple[tuple[str, ...], ...]:
    return tuple(
        tuple(sorted(v.lower() for v in values))
        for values in (filters.providers, filters.price_types, filters.gpus, filters.vendors)
    ) + ((str(filters.include_stale), str(filters.trains)),)


def snapshot_offers(snapshot: CatalogSnapshot, filters: Filters, cheapest_per_provider: bool = False) -> list[Offer]:
    """matching_offers (optionally reduced to the cheapest per provider), computed once per snapshot and
    filter set: it depends on neither the workload nor the model, so every ranking can share it."""

    def build() -> list[Offer]:
        found = matching_offers(snapshot.offers, snapshot.gpus, filters)
        return cheapest_offer_per_provider(found) if cheapest_per_provider else found

    return snapshot.memo.get(OFFERS, (cheapest_per_provider, filter_key(filters)), build)


class OfferSlots(NamedTuple):
    """snapshot_offers(...) by (GPU, machine): each offer's slot number, and the slots in order of first
    appearance. A ranking estimates once per slot and then prices each offer by its slot number."""

    slot_of: list[int]  # per offer (same order as snapshot_offers), its index into `slots`
    slots: list[tuple[str, Machine]]  # (GPU id, machine)


OFFER_SLOTS: MemoKind[OfferSlots] = MemoKind("offer_slots")  # offer_slots per filter key


def offer_slots(snapshot: CatalogSnapshot, filters: Filters) -> OfferSlots:
    """Each matching offer's (GPU, machine) slot. It depends on the catalog and the filters only, never on
    the workload, so it is memoised per snapshot like snapshot_offers: a ranking then costs no machine
    reading or hashing per offer (the bulk of its per-offer time with many sellers)."""

    def build() -> OfferSlots:
        numbers: dict[tuple[str, Machine], int] = {}
        slot_of = []
        for offer in snapshot_offers(snapshot, filters):
            slot = (offer.gpu_id, machine_of(offer, snapshot.gpus[offer.gpu_id]))
            slot_of.append(numbers.setdefault(slot, len(numbers)))
        return OfferSlots(slot_of, list(numbers))

    return snapshot.memo.get(OFFER_SLOTS, filter_key(filters), build)


class OnDemandSequence(Sequence[T], Generic[T]):
    """A sequence of known length whose items are produced on first access (`_item`), then kept."""

    def __init__(self, length: int) -> None:
        self._length = length

    @abstractmethod
    def _item(self, index: int) -> T:
        """Produce item `index`; each subclass says how."""

    def _items(self, positions: range) -> list[T]:
        """Items at `positions`; a subclass may produce a run of them faster than one by one."""
        return [self._item(i) for i in positions]

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return self._items(range(*index.indices(self._length)))
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._item(index)

    def __iter__(self) -> Iterator[T]:
        return (self._item(i) for i in range(self._length))


class LazyOptions(OnDemandSequence[T]):
    """Ranked options built on first access: the ranking fixes order and prices for every offer, but
    an option object is only made for the rows a caller reads (a page shows 25, `?limit=10` reads 10)."""

    def __init__(self, count: int, build: Callable[[int], T]) -> None:
        super().__init__(count)
        self._built: list[T | None] = [None] * count
        self._build = build

    def _item(self, index: int) -> T:
        built = self._built[index]
        if built is None:
            built = self._built[index] = self._build(index)
        return built


class Computed(OnDemandSequence[T]):
    """A sequence whose items are computed on every access: for cheap items not worth keeping.
    `compute_run`, when given, computes the items of a range of positions at once (a slice)."""

    def __init__(
        self, count: int, compute: Callable[[int], T], compute_run: Callable[[range], list[T]] | None = None
    ) -> None:
        super().__init__(count)
        self._compute = compute
        self._compute_run = compute_run

    def _item(self, index: int) -> T:
        return self._compute(index)

    def _items(self, positions: range) -> list[T]:
        if self._compute_run is None or positions.step != 1:
            return super()._items(positions)
        return self._compute_run(positions)


class RowKey(NamedTuple):
    """What a ranked row is, read without building its option: its configuration and its reason
    (a page groups the infeasible rows and picks the best row per configuration from these)."""

    gpu_id: str
    gpu_count: int
    reason: str


class MergedOrder(OnDemandSequence[T]):
    """A k-way merge of sorted runs, taken only as far as a caller reads: ranking n offers then costs
    O(k) until options are read, and each read costs O(log k). With `unique`, an item whose key was
    already taken is skipped (the first, i.e. best, of each key is kept); `total` counts the kept items."""

    def __init__(self, runs: Iterable[Iterator[T]], total: int, unique: Callable[[T], Hashable] | None = None) -> None:
        super().__init__(total)
        self._merged: Iterator[T] = heapq.merge(*runs)  # type: ignore[type-var]  # runs hold tuples
        self._taken: list[T] = []
        self._unique = unique
        self._seen: set[Hashable] = set()

    def _item(self, index: int) -> T:
        while len(self._taken) <= index:
            item = next(self._merged)
            if self._unique is not None:
                key = self._unique(item)
                if key in self._seen:
                    continue
                self._seen.add(key)
            self._taken.append(item)
        return self._taken[index]


class Chained(OnDemandSequence[T]):
    """Sequences one after another, each read only as far as a caller reads (tiers of a ranking: every item of the
    first before any of the second)."""

    def __init__(self, *parts: Sequence[T]) -> None:
        super().__init__(sum(len(part) for part in parts))
        self._parts = parts

    def _item(self, index: int) -> T:
        for part in self._parts:
            if index < len(part):
                return part[index]
            index -= len(part)
        raise IndexError(index)
