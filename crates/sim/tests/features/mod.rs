//! The simulator features the RFC 7928 evaluation needs: the drop trace, CBR batches,
//! fixed-size web transfers, link rate changes, start-up times and LEDBAT; and a link's
//! device queue (ns-3's and a driver's, below the qdisc); the behaviour profiles; one
//! flow on a long fat path.

use super::*;

mod bbr;
mod device;
mod ledbat;
mod links;
mod long_fat_path;
mod prague;
mod profiles;
mod signals;
mod sources;
mod startup;
