"""What both vector stores share and no vendor SDK needs: scope checks, the filter plan, embedder metadata.

The two stores (``memory.store.edge`` on Qdrant Edge, ``memory.store.server`` on qdrant-client) speak
different SDK types for the same filter. The decision *which* conditions a scope and a ``RecordFilter``
become is made once here, as a small vendor-neutral plan; each store only translates the plan.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory.errors import EmbedderMismatchError, ScopeError
from memory.models import Scope, Visibility
from memory.ports import RecordFilter, StoredPoint

__all__ = [
    "LAYERS",
    "META_FILE",
    "PRIVATE",
    "Condition",
    "check_dense",
    "check_embedder",
    "check_ids",
    "check_payload_in_scope",
    "check_points_in_scope",
    "check_scope",
    "generation_name",
    "generation_number",
    "plan_filter",
    "tenant_condition",
]

#: The two collections every store holds, in a fixed order.
LAYERS: tuple[str, ...] = ("facts", "summaries")

#: The payload ``visibility`` of a private session's records (``memory.models.Visibility.PRIVATE``).
PRIVATE = Visibility.PRIVATE.value

#: Name of the embedded store's metadata file (embedder name and dimension), next to the shards.
META_FILE = "meta.json"


@dataclass(frozen=True, slots=True)
class Condition:
    """One ``must`` condition of a store filter.

    ``op`` is ``"eq"`` (payload ``key`` equals ``value``, or contains it for an array field),
    ``"any"`` (payload ``key`` is one of ``values``), ``"ids"`` (point id is one of ``values``) or
    ``"lt"`` (payload ``key`` < ``bound``), ``"visible"`` (payload ``session`` equals ``value``,
    or payload ``visibility`` is not ``private``), ``"alive"`` (payload ``key`` is empty or > ``bound``)
    or ``"any_or_empty"`` (payload ``key`` holds one of ``values``, or is empty/missing).
    """

    op: str
    key: str = ""
    value: str = ""
    values: tuple[str, ...] = ()
    bound: float = 0.0


def check_scope(scope: object) -> Scope:
    """The scope, if it is a real ``Scope`` with a tenant; else ``ScopeError``."""
    if not isinstance(scope, Scope):
        raise ScopeError(f"store calls need a memory.models.Scope with a tenant; got {scope!r}")
    if not scope.tenant or not scope.tenant.strip():
        raise ScopeError("store calls need a Scope with a non-empty tenant")
    return scope


def check_payload_in_scope(scope: Scope, payload: Mapping[str, Any], what: str) -> None:
    """``ScopeError`` unless the payload's tenant (and session, if the scope has one) match the scope."""
    if "tenant" in payload and payload["tenant"] != scope.tenant:
        raise ScopeError(f"{what} has tenant {payload['tenant']!r} but the call's scope is {scope.tenant!r}")
    if scope.session and "session" in payload and payload["session"] != scope.session:
        raise ScopeError(
            f"{what} has session {payload['session']!r} but the call's scope is session {scope.session!r}"
        )


def check_points_in_scope(scope: Scope, points: Sequence[StoredPoint]) -> None:
    """Every point must carry the scope's tenant (and session, when the scope has one)."""
    for point in points:
        if point.payload.get("tenant") != scope.tenant:
            raise ScopeError(
                f"point {point.id} has tenant {point.payload.get('tenant')!r} "
                f"but the call's scope is {scope.tenant!r}"
            )
        if scope.session and point.payload.get("session") != scope.session:
            raise ScopeError(
                f"point {point.id} has session {point.payload.get('session')!r} "
                f"but the call's scope is session {scope.session!r}"
            )


def check_ids(ids: Iterable[str]) -> tuple[str, ...]:
    """Point ids in canonical uuid form, deduplicated; ``ValueError`` for anything that is not a uuid.

    Refusing (rather than dropping) a bad id matters: a filter whose only ids were dropped would
    match every point in scope, and ``delete`` would then erase them all.
    """
    canonical: set[str] = set()
    for point_id in ids:
        try:
            canonical.add(str(uuid.UUID(str(point_id))))
        except ValueError:
            raise ValueError(
                f"point ids are uuid strings (see memory.models.fact_id); got {point_id!r}"
            ) from None
    return tuple(sorted(canonical))


def tenant_condition(scope: Scope) -> Condition:
    return Condition("eq", "tenant", value=scope.tenant)


def plan_filter(scope: Scope, flt: RecordFilter | None = None) -> list[Condition]:
    """The ``must`` conditions for a call: the scope first (tenant, session, user), then the filter."""
    plan = [tenant_condition(scope)]
    if scope.session:
        plan.append(Condition("eq", "session", value=scope.session))
    if scope.user:
        plan.append(Condition("eq", "users", value=scope.user))
    if flt is None:
        return plan
    for key, wanted in (("kind", flt.kinds), ("status", flt.statuses), ("subject", flt.subjects),
                        ("mentions", flt.mentions)):
        if wanted:
            plan.append(Condition("any", key, values=tuple(sorted(wanted))))
    if flt.ids:
        plan.append(Condition("ids", values=check_ids(flt.ids)))
    if flt.due_before is not None:
        plan.append(Condition("lt", "due_ts", bound=flt.due_before.timestamp()))
    if flt.expires_before is not None:
        plan.append(Condition("lt", "expires_ts", bound=flt.expires_before.timestamp()))
    if flt.visible_in is not None:
        plan.append(Condition("visible", "session", value=flt.visible_in))
    if flt.alive_at is not None:
        plan.append(Condition("alive", "expires_ts", bound=flt.alive_at.timestamp()))
    if flt.cites:
        plan.append(Condition("any_or_empty", "messages", values=tuple(sorted(flt.cites))))
    return plan


def generation_name(prefix: str, layer: str, number: int) -> str:
    """The server collection holding generation ``number`` of a layer; the alias ``<prefix>_<layer>``
    points to the live one, so a rebuild can fill the next generation and switch atomically."""
    return f"{prefix}_{layer}_v{number}"


def generation_number(prefix: str, layer: str, name: str) -> int | None:
    """The generation a collection name is, for this prefix and layer; None if it is none of them."""
    head = f"{prefix}_{layer}_v"
    tail = name[len(head):] if name.startswith(head) else ""
    return int(tail) if tail.isdigit() and not tail.startswith("0") else None


def check_dense(vector: Sequence[float], dim: int, what: str) -> None:
    """``ValueError`` when a dense vector has the wrong length (a misconfigured embedder or a bug)."""
    if len(vector) != dim:
        raise ValueError(f"{what} has {len(vector)} dimensions; this store holds {dim}-dimensional vectors")


def check_embedder(where: str, stored_name: object, stored_dim: object, name: str, dim: int) -> None:
    """``EmbedderMismatchError`` when ``where`` was built with another embedder than the configured one."""
    if stored_name == name and stored_dim == dim:
        return
    raise EmbedderMismatchError(
        f"{where} was built with embedder {stored_name!r} (dim {stored_dim}), but the configured embedder "
        f"is {name!r} (dim {dim}). Vectors from different embedders cannot be compared. Run "
        f"`heyan memory reindex` to re-embed every memory with the configured embedder, or set "
        f"HEYAN_EMBEDDER back to {stored_name!r}."
    )
