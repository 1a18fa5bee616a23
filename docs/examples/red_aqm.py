"""RED as a Python AQM: Fig. 2 of Floyd & Jacobson (1993), with gentle mode (Floyd 2000)."""

import math


class Red:
    # the paper's parameters; a scenario's queue keys override them (others are ignored)
    DEFAULTS = dict(min_th=5, max_th=15, w_q=0.002, max_p=0.02, gentle=False, ecn=False)

    def __init__(self, limit, mean_pkt_size=500, **params):
        self.limit, self.mean_pkt_size = limit, mean_pkt_size
        for key, default in self.DEFAULTS.items():
            setattr(self, key, params.get(key, default))
        self.avg, self.count, self.q_time = 0.0, -1, None

    def enqueue(self, now, pkt, q):
        if q.packets > 0:  # avg <- (1 - w_q) avg + w_q q
            self.avg += self.w_q * (q.packets - self.avg)
        elif self.q_time is not None:  # idle since q_time: avg <- (1 - w_q)^m avg
            s = 8 * self.mean_pkt_size / q.link_rate_bps  # a small packet's transmission time
            m = (now - self.q_time) * 1e-9 / s
            self.avg *= math.exp(m * math.log(1 - self.w_q))
            self.q_time = now
        verdict = "enqueue"
        if self.avg < self.min_th:
            self.count = -1
        elif self.avg >= (2 * self.max_th if self.gentle else self.max_th):
            self.count = -1
            return "drop_forced"
        else:
            self.count += 1
            if self.avg < self.max_th:
                p_b = self.max_p * (self.avg - self.min_th) / (self.max_th - self.min_th)
            else:  # gentle: from max_p at max_th to 1 at 2 max_th
                p_b = self.max_p + (1 - self.max_p) * (self.avg - self.max_th) / self.max_th
            p_a = min(p_b / (1 - self.count * p_b), 1.0) if self.count * p_b < 1 else 1.0
            if p_a > 0 and q.rng.random() < p_a:
                self.count = -1
                if not (self.ecn and pkt.ecn != "not-ect"):
                    return "drop"
                verdict = "mark"
        if q.packets >= self.limit:  # the buffer is full
            self.count = -1
            return "drop_overflow"
        return verdict

    def dequeue(self, now, pkt, q):
        if q.packets == 1:  # the queue becomes empty: q_time <- time
            self.q_time = now
        return "send"

    def signal(self):  # the average, for the monitors
        return self.avg
