"""Drop Tail as a Python AQM: first in, first out with a buffer of `limit` packets."""


class DropTail:
    def __init__(self, limit):
        self.limit = limit

    def enqueue(self, now, pkt, q):
        return "drop_overflow" if q.packets >= self.limit else "enqueue"
