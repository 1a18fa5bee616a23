//! The packet-level network simulator (under construction).
