"""The cheap trigger: does a message carry a fact worth extracting at once?

The seed's cost control: promises, agreements, refusals, demands and explicit preferences go to
extraction immediately; everything else waits for the next batch. A false positive costs one early
extraction; a false negative only delays a fact until the batch, so the patterns lean inclusive.
"""

from __future__ import annotations

import re

__all__ = ["fact_bearing"]

_ZH = re.compile(
    r"我(会|保证|答应|一定|承诺|要求|希望|想要|需要|同意|不同意|拒绝|接受|不接受|更喜欢|宁愿|决定)"
    r"|(同意|成交|就这么办|说定了|不行|没门|必须|截止|之前|以前|以内|之内)"
)
_EN = re.compile(
    r"\b(i\s*(will|'ll|promise|commit|agree|disagree|refuse|accept|want|demand|need|expect|prefer|insist"
    r"|would rather|won't|am going to)|we\s*(agree|will|'ll)|deal|agreed|sounds good|that works|no way"
    r"|by (monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|end of))\b",
    re.IGNORECASE,
)


def fact_bearing(text: str) -> bool:
    """True when the text likely holds a commitment, agreement, refusal, demand or preference."""
    return bool(_ZH.search(text) or _EN.search(text))
