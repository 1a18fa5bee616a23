"""``aqmlab evaluate``: the RFC 7928 (Characterization Guidelines for AQM) scenarios."""
