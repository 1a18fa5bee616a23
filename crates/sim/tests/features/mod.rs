//! The simulator features the RFC 7928 evaluation needs: the drop trace, CBR batches,
//! fixed-size web transfers, link rate changes, start-up times and LEDBAT.

use super::*;

mod ledbat;
mod links;
mod signals;
mod sources;
mod startup;
