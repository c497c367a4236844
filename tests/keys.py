"""Encryption keys of the test run (test keys: they protect nothing).

``TEST_KEY`` is what ``tests/conftest.py`` puts in ``HEYAN_ENCRYPTION_KEYS`` for the whole run, and
what tests that build the distributed shape's environment by hand pass on. ``OTHER_KEY`` is a second
key for rotation tests.
"""

from __future__ import annotations

TEST_KEY = "3GGVDCNcFuDqQWpgnOMI5yfSBUkq924bdTQjkz0h2dw="
OTHER_KEY = "Clw2pHMe6H43DRm1I1nDV81lsTKcfIHcbcXCf9-5gPc="
