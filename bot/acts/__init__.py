"""Dialogue acts: what each line of a conversation does (request, offer, acceptance, …).

``labels`` names the acts; ``features`` turns a line into the classifier's input (the shipped local
embedder's vector plus a few cheap features); ``model`` holds the small classifier whose weights live
in ``bot/data/acts.npz`` (trained by ``make acts``, ``bot.acts.train``); ``reader`` reads a thread's
acts in order. ``bot.offline.acts`` turns an act sequence into records the offline rules miss.
"""

from bot.acts.labels import Act

__all__ = ["Act"]
