"""Slack's Block Kit limits, as the stand-in enforces them (independent of the adapter's own code).

From Slack's Block Kit reference: a message holds at most 50 blocks and a modal or Home tab 100; a
section's text at most 3,000 characters and its fields 10 of 2,000; a header 150; a context 10
elements; an actions block 25 elements; a button's text 75, its ``value`` 2,000, its ``action_id``
255 (every ``block_id`` and ``action_id`` 255); a confirm dialog's title 100, text 300, buttons 30; an
input's label 2,000; a plain-text input's ``max_length`` 3,000 and its ``initial_value`` within it; a
modal's title, submit and close 24 and its ``private_metadata`` 3,000. Text objects are
``plain_text`` or ``mrkdwn`` and never empty.

``problems(blocks, where)`` lists what breaks them as Slack words it: ``"must be less than 3001
characters [json-pointer:/blocks/0/text/text]"``. The stand-in answers a message with such
problems ``invalid_blocks`` and a view ``invalid_arguments``, each with the problems in
``response_metadata.messages`` (``[ERROR] …``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MESSAGE_BLOCKS", "TEXT_LIMIT", "VIEW_BLOCKS", "problems", "view_problems"]

MESSAGE_BLOCKS = 50
VIEW_BLOCKS = 100
#: chat.postMessage's ``text`` (beyond: ``msg_too_long``).
TEXT_LIMIT = 40_000


def _too_long(value: Any, limit: int, at: str, out: list[str]) -> None:
    if isinstance(value, str) and len(value) > limit:
        out.append(f"must be less than {limit + 1} characters [json-pointer:{at}]")


def _text(obj: Any, limit: int, at: str, out: list[str], *, kinds: tuple[str, ...] = ("plain_text", "mrkdwn")) -> None:
    if not isinstance(obj, Mapping):
        out.append(f"must provide an object [json-pointer:{at}]")
        return
    if obj.get("type") not in kinds:
        out.append(f"must be a valid enum value [json-pointer:{at}/type]")
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        out.append(f"must be more than 0 characters [json-pointer:{at}/text]")
        return
    _too_long(text, limit, f"{at}/text", out)


def _confirm(obj: Any, at: str, out: list[str]) -> None:
    if not isinstance(obj, Mapping):
        return
    _text(obj.get("title"), 100, f"{at}/title", out, kinds=("plain_text",))
    _text(obj.get("text"), 300, f"{at}/text", out)
    _text(obj.get("confirm"), 30, f"{at}/confirm", out, kinds=("plain_text",))
    _text(obj.get("deny"), 30, f"{at}/deny", out, kinds=("plain_text",))


def _element(el: Any, at: str, out: list[str]) -> None:
    if not isinstance(el, Mapping):
        out.append(f"must provide an object [json-pointer:{at}]")
        return
    _too_long(el.get("action_id"), 255, f"{at}/action_id", out)
    kind = el.get("type")
    if kind == "button":
        _text(el.get("text"), 75, f"{at}/text", out, kinds=("plain_text",))
        _too_long(el.get("value"), 2000, f"{at}/value", out)
        _too_long(el.get("url"), 3000, f"{at}/url", out)
        if "style" in el and el["style"] not in ("primary", "danger"):
            out.append(f"must be a valid enum value [json-pointer:{at}/style]")
        if "confirm" in el:
            _confirm(el["confirm"], f"{at}/confirm", out)
    elif kind == "plain_text_input":
        max_length = el.get("max_length", 3000)
        if not isinstance(max_length, int) or not 1 <= max_length <= 3000:
            out.append(f"must be between 1 and 3000 [json-pointer:{at}/max_length]")
            max_length = 3000
        _too_long(el.get("initial_value"), max_length, f"{at}/initial_value", out)
        if "placeholder" in el:
            _text(el["placeholder"], 150, f"{at}/placeholder", out, kinds=("plain_text",))
    elif kind in ("plain_text", "mrkdwn"):
        _text(el, 3000, at, out)


def _block(block: Any, at: str, out: list[str]) -> None:
    if not isinstance(block, Mapping):
        out.append(f"must provide an object [json-pointer:{at}]")
        return
    _too_long(block.get("block_id"), 255, f"{at}/block_id", out)
    kind = block.get("type")
    if kind == "section":
        if "text" not in block and "fields" not in block:
            out.append(f"must provide either text or fields [json-pointer:{at}]")
        if "text" in block:
            _text(block["text"], 3000, f"{at}/text", out)
        fields = block.get("fields")
        if fields is not None:
            if len(fields) > 10:
                out.append(f"no more than 10 items allowed [json-pointer:{at}/fields]")
            for i, f in enumerate(fields):
                _text(f, 2000, f"{at}/fields/{i}", out)
        if "accessory" in block:
            _element(block["accessory"], f"{at}/accessory", out)
    elif kind == "header":
        _text(block.get("text"), 150, f"{at}/text", out, kinds=("plain_text",))
    elif kind == "context":
        elements = block.get("elements") or []
        if not elements or len(elements) > 10:
            out.append(f"must provide between 1 and 10 items [json-pointer:{at}/elements]")
        for i, el in enumerate(elements):
            _element(el, f"{at}/elements/{i}", out)
    elif kind == "actions":
        elements = block.get("elements") or []
        if not elements or len(elements) > 25:
            out.append(f"must provide between 1 and 25 items [json-pointer:{at}/elements]")
        for i, el in enumerate(elements):
            _element(el, f"{at}/elements/{i}", out)
    elif kind == "input":
        _text(block.get("label"), 2000, f"{at}/label", out, kinds=("plain_text",))
        if "hint" in block:
            _text(block["hint"], 2000, f"{at}/hint", out, kinds=("plain_text",))
        _element(block.get("element"), f"{at}/element", out)
    elif kind in ("divider", "rich_text", "image", "file", "video"):
        pass
    else:
        out.append(f"must be a valid enum value [json-pointer:{at}/type]")


def problems(blocks: Any, *, limit: int = MESSAGE_BLOCKS, at: str = "/blocks") -> list[str]:
    """What breaks Slack's limits in a list of blocks (empty when it is fine)."""
    out: list[str] = []
    if not isinstance(blocks, list):
        return [f"must provide an array [json-pointer:{at}]"]
    if len(blocks) > limit:
        out.append(f"no more than {limit} items allowed [json-pointer:{at}]")
    for i, block in enumerate(blocks):
        _block(block, f"{at}/{i}", out)
    return out


def view_problems(view: Any) -> list[str]:
    """``problems`` of a modal or Home tab, and of the view's own fields."""
    if not isinstance(view, Mapping):
        return ["must provide an object [json-pointer:/view]"]
    out = problems(view.get("blocks", []), limit=VIEW_BLOCKS, at="/view/blocks")
    if view.get("type") == "modal":
        _text(view.get("title"), 24, "/view/title", out, kinds=("plain_text",))
        for name in ("submit", "close"):
            if name in view:
                _text(view[name], 24, f"/view/{name}", out, kinds=("plain_text",))
    _too_long(view.get("private_metadata"), 3000, "/view/private_metadata", out)
    _too_long(view.get("callback_id"), 255, "/view/callback_id", out)
    _too_long(view.get("external_id"), 255, "/view/external_id", out)
    return out
