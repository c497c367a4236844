"""What Discord checks in a message body before accepting it, for ``tests.discord_standin``.

From Discord's documentation (discord-api-docs, ``developers/resources/message.mdx`` "Embed Limits",
``developers/components/reference.mdx``): content at most 2,000 characters; at most 10 embeds; an
embed's title 256, description 4,096, up to 25 fields, field name 256 and value 1,024 (both
required), footer text 2,048, author name 256; all titles, descriptions, field names and values,
footer texts and author names of a message's embeds together at most 6,000. Lengths are measured
after trimming leading and trailing whitespace. Classic components: at most 5 action rows, each
with up to 5 buttons or one select; a ``custom_id`` of 1-100 characters, unique in the message; a
button label at most 80; a select's options 1-25, each label, value and description at most 100,
its placeholder at most 150.

Interaction callbacks (``developers/interactions/receiving-and-responding.mdx``, "Interaction
Response Object"): a message callback may set only the flags SUPPRESS_EMBEDS, EPHEMERAL,
IS_COMPONENTS_V2, IS_VOICE_MESSAGE and SUPPRESS_NOTIFICATIONS, a DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
only EPHEMERAL; a modal has a ``custom_id`` of 1-100 characters, a title of at most 45 and 1-5
components, its text inputs (``developers/components/reference.mdx``, "Text Input", "Label") a
``custom_id`` of 1-100, a value of at most 4,000, a placeholder of at most 100, ``min_length`` 0-4,000
and ``max_length`` 1-4,000, a label of at most 45 and a label description of at most 100; an
autocomplete result at most 25 choices (``developers/interactions/application-commands.mdx``,
"Application Command Option Choice Structure": a name of 1-100 characters, a string value of at most 100).

A violation is answered as Discord does: HTTP 400, JSON code 50035 "Invalid Form Body", and an
``errors`` object whose keys are the path to the offending field (discord.py flattens it into
``In embeds.0.description: Must be 4096 or fewer in length.``).
"""

from __future__ import annotations

from typing import Any

Payload = dict[str, Any]

__all__ = [
    "EMBED_TOTAL",
    "MAX_CONTENT",
    "MAX_EMBEDS",
    "callback_errors",
    "message_errors",
]

MAX_CONTENT = 2000
MAX_EMBEDS = 10
EMBED_TOTAL = 6000
MAX_FIELDS = 25
MAX_ROWS = 5
MAX_BUTTONS = 5
CUSTOM_ID = 100
BUTTON_LABEL = 80
MAX_OPTIONS = 25
OPTION_TEXT = 100
PLACEHOLDER = 150
#: (path inside an embed, limit)
_EMBED_TEXT = (("title", 256), ("description", 4096), ("footer.text", 2048), ("author.name", 256))


class _Errors:
    """Discord's nested ``errors`` object, built one violation at a time."""

    def __init__(self) -> None:
        self.tree: Payload = {}

    def add(self, path: list[str | int], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def too_long(self, path: list[str | int], limit: int) -> None:
        self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def required(self, path: list[str | int]) -> None:
        self.add(path, "BASE_TYPE_REQUIRED", "This field is required")


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _get(data: Payload, dotted: str) -> object:
    node: object = data
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _embeds(embeds: list[Payload], errors: _Errors) -> None:
    if len(embeds) > MAX_EMBEDS:
        errors.too_long(["embeds"], MAX_EMBEDS)
    total = 0
    for i, embed in enumerate(embeds):
        for dotted, limit in _EMBED_TEXT:
            text = _text(_get(embed, dotted))
            total += len(text)
            if len(text) > limit:
                errors.too_long(["embeds", i, *dotted.split(".")], limit)
        fields = embed.get("fields") or []
        if len(fields) > MAX_FIELDS:
            errors.too_long(["embeds", i, "fields"], MAX_FIELDS)
        for j, item in enumerate(fields):
            for key, limit in (("name", 256), ("value", 1024)):
                text = _text(item.get(key))
                total += len(text)
                if not text:
                    errors.required(["embeds", i, "fields", j, key])
                elif len(text) > limit:
                    errors.too_long(["embeds", i, "fields", j, key], limit)
    if total > EMBED_TOTAL:
        errors.add(["embeds"], "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL}")


def _custom_id(value: object, path: list[str | int], seen: set[str], errors: _Errors) -> None:
    if not isinstance(value, str) or not value:
        errors.required([*path, "custom_id"])
        return
    if len(value) > CUSTOM_ID:
        errors.too_long([*path, "custom_id"], CUSTOM_ID)
    if value in seen:
        errors.add([*path, "custom_id"], "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
    seen.add(value)


def _select(item: Payload, path: list[str | int], seen: set[str], errors: _Errors) -> None:
    _custom_id(item.get("custom_id"), path, seen, errors)
    if len(_text(item.get("placeholder"))) > PLACEHOLDER:
        errors.too_long([*path, "placeholder"], PLACEHOLDER)
    if item.get("type") != 3:
        return  # user/role/channel selects have no options
    options = item.get("options") or []
    if not options:
        errors.required([*path, "options"])
    if len(options) > MAX_OPTIONS:
        errors.too_long([*path, "options"], MAX_OPTIONS)
    for k, option in enumerate(options):
        for key in ("label", "value", "description"):
            text = option.get(key)
            if key != "description" and not text:
                errors.required([*path, "options", k, key])
            elif isinstance(text, str) and len(text) > OPTION_TEXT:
                errors.too_long([*path, "options", k, key], OPTION_TEXT)


def _components(rows: list[Payload], errors: _Errors) -> None:
    if len(rows) > MAX_ROWS:
        errors.too_long(["components"], MAX_ROWS)
    seen: set[str] = set()
    for i, row in enumerate(rows):
        if row.get("type") != 1:
            continue  # components v2 are not used by Heyan; not modelled
        children = row.get("components") or []
        selects = [c for c in children if c.get("type") in (3, 5, 6, 7, 8)]
        if selects and len(children) > 1:
            errors.add(["components", i, "components"], "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                       "The specified component exceeds the maximum width")
        elif len(children) > MAX_BUTTONS:
            errors.too_long(["components", i, "components"], MAX_BUTTONS)
        for j, child in enumerate(children):
            path: list[str | int] = ["components", i, "components", j]
            if child.get("type") == 2:
                if child.get("style") != 5:  # link buttons carry a url, not a custom_id
                    _custom_id(child.get("custom_id"), path, seen, errors)
                if len(child.get("label") or "") > BUTTON_LABEL:
                    errors.too_long([*path, "label"], BUTTON_LABEL)
            else:
                _select(child, path, seen, errors)


def message_errors(body: Payload) -> Payload | None:
    """Discord's ``errors`` object for a message body that breaks a documented limit, or None."""
    errors = _Errors()
    content = body.get("content")
    if isinstance(content, str) and len(content) > MAX_CONTENT:
        errors.too_long(["content"], MAX_CONTENT)
    _embeds(list(body.get("embeds") or []), errors)
    _components(list(body.get("components") or []), errors)
    return errors.tree or None


#: Message flags an interaction callback may set (SUPPRESS_EMBEDS, EPHEMERAL, SUPPRESS_NOTIFICATIONS,
#: IS_VOICE_MESSAGE, IS_COMPONENTS_V2); a "thinking" deferral may set only EPHEMERAL.
CALLBACK_FLAGS = (1 << 2) | (1 << 6) | (1 << 12) | (1 << 13) | (1 << 15)
DEFERRAL_FLAGS = 1 << 6
MODAL_TITLE = 45
MODAL_COMPONENTS = 5
TEXT_INPUT_VALUE = 4000
TEXT_INPUT_PLACEHOLDER = 100
LABEL = 45
LABEL_DESCRIPTION = 100
CHOICES = 25
CHOICE_TEXT = 100


def _text_input(item: Payload, path: list[str | int], errors: _Errors) -> None:
    custom_id = item.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        errors.required([*path, "custom_id"])
    elif len(custom_id) > CUSTOM_ID:
        errors.too_long([*path, "custom_id"], CUSTOM_ID)
    if len(item.get("value") or "") > TEXT_INPUT_VALUE:
        errors.too_long([*path, "value"], TEXT_INPUT_VALUE)
    if len(item.get("placeholder") or "") > TEXT_INPUT_PLACEHOLDER:
        errors.too_long([*path, "placeholder"], TEXT_INPUT_PLACEHOLDER)
    if len(item.get("label") or "") > LABEL:  # the deprecated label of a text input in an action row
        errors.too_long([*path, "label"], LABEL)
    for key, low in (("min_length", 0), ("max_length", 1)):
        value = item.get(key)
        if value is not None and not low <= int(value) <= TEXT_INPUT_VALUE:
            errors.add([*path, key], "NUMBER_TYPE_MAX" if int(value) > TEXT_INPUT_VALUE else "NUMBER_TYPE_MIN",
                       f"int value should be between {low} and {TEXT_INPUT_VALUE}.")


def _modal(data: Payload, errors: _Errors) -> None:
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        errors.required(["data", "custom_id"])
    elif len(custom_id) > CUSTOM_ID:
        errors.too_long(["data", "custom_id"], CUSTOM_ID)
    title = _text(data.get("title"))
    if not title:
        errors.required(["data", "title"])
    elif len(title) > MODAL_TITLE:
        errors.too_long(["data", "title"], MODAL_TITLE)
    components = data.get("components") or []
    if not components:
        errors.required(["data", "components"])
    elif len(components) > MODAL_COMPONENTS:
        errors.too_long(["data", "components"], MODAL_COMPONENTS)
    for i, item in enumerate(components):
        path: list[str | int] = ["data", "components", i]
        if item.get("type") == 18:  # Label: one child
            if len(item.get("label") or "") > LABEL:
                errors.too_long([*path, "label"], LABEL)
            if len(item.get("description") or "") > LABEL_DESCRIPTION:
                errors.too_long([*path, "description"], LABEL_DESCRIPTION)
            child = item.get("component") or {}
            if child.get("type") == 4:
                _text_input(child, [*path, "component"], errors)
        elif item.get("type") == 1:  # an action row holding one text input (deprecated in modals)
            for j, child in enumerate(item.get("components") or []):
                if child.get("type") == 4:
                    _text_input(child, [*path, "components", j], errors)


def _choices(data: Payload, errors: _Errors) -> None:
    choices = data.get("choices") or []
    if len(choices) > CHOICES:
        errors.too_long(["data", "choices"], CHOICES)
    for i, choice in enumerate(choices):
        name = choice.get("name")
        if not isinstance(name, str) or not name:
            errors.required(["data", "choices", i, "name"])
        elif len(name) > CHOICE_TEXT:
            errors.too_long(["data", "choices", i, "name"], CHOICE_TEXT)
        value = choice.get("value")
        if isinstance(value, str) and len(value) > CHOICE_TEXT:
            errors.too_long(["data", "choices", i, "value"], CHOICE_TEXT)


def callback_errors(kind: int, data: Payload) -> Payload | None:
    """Discord's ``errors`` object for an interaction callback of type ``kind`` whose ``data`` breaks a
    documented rule, or None. A message's own limits are checked by ``message_errors``."""
    errors = _Errors()
    flags = int(data.get("flags") or 0)
    allowed = DEFERRAL_FLAGS if kind == 5 else CALLBACK_FLAGS
    if kind in (4, 5, 7) and flags & ~allowed:
        errors.add(["data", "flags"], "MESSAGE_INVALID_FLAGS" if kind != 5 else "INTERACTION_INVALID_FLAGS",
                   "Invalid flags")
    if kind == 9:
        _modal(data, errors)
    elif kind == 8:
        _choices(data, errors)
    return errors.tree or None
