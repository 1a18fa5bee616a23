//! Configurations as data: the same structure is read from a scenario's TOML
//! (`queue = { type = "red", ... }`), from a gateway's flags and from Python keyword
//! arguments, by one reader ([`parse_queue`], [`QueueTable`]), and validated in one
//! place, each AQM's build ([`QueueConfig::build`], [`QueueConfig::build_qdisc`]), with
//! errors naming the parameter.
//!
//! - `table`: reading a table key by key, whatever its source.
//! - `fields`: declaring a configuration's keys once (`config_struct!`) and describing them.
//! - `build`: what every AQM's configuration answers and how it is built, and the checks
//!   the builds share.
//!
//! [`QueueConfig`] has a variant per line of the registry ([`crate::registry`]); each
//! AQM's file holds its configuration struct and build.

use serde::{Deserialize, Deserializer, Serialize};

use crate::dispatch::{AnyAqm, AnyQdisc};
use crate::error::{AqmError, Result};
use crate::external::{External, ExternalConfig, ExternalQdisc};
use crate::packet::Packet;
use crate::qdisc::Fifo;

pub mod build;
pub mod fields;
pub(crate) mod table;

pub use build::{
    AqmConfig, BuildAqm, BuildContext, BuildQdisc, DEFAULT_LINK_RATE_BPS, DEFAULT_SEED,
};
pub use fields::{Fields, Param, ParamType};
pub use table::{QueueTable, Value};

pub use crate::codel::CodelFields;
pub use crate::red::RedFields;

/// Declares [`QueueConfig`], [`QUEUE_TYPES`] and what the generic code asks of a
/// configuration, from the registry's table. (A type outside the table, such as a
/// queue written in another language, is a further variant with an arm in each match.)
macro_rules! queue_config {
    ($($kind:ident $mo:ident::$ty:ident($cfg:ident) = $name:literal, $c:literal, $t:literal;)*) => {
        $( pub use crate::$mo::$cfg; )*

        /// A queue discipline and its parameters, tagged by `type`. Serialized as its
        /// table with `type` first and every default filled in.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum QueueConfig {
            $( #[serde(rename = $name)] $ty($cfg), )*
            /// An AQM from outside the crate (`type = "python"` or `"plugin"`, see
            /// [`crate::external`]); serialized as written.
            #[serde(untagged)]
            External(ExternalConfig),
        }

        /// The `type` names accepted in configurations.
        pub const QUEUE_TYPES: &[&str] = &[$($name),*];

        impl QueueConfig {
            /// The `type` name.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( QueueConfig::$ty(_) => $name, )*
                    QueueConfig::External(e) => e.kind,
                }
            }

            /// The discipline named `kind` with every parameter at its default, if
            /// `kind` is one of [`QUEUE_TYPES`].
            pub fn default_of(kind: &str) -> Option<QueueConfig> {
                match kind {
                    $( $name => Some(QueueConfig::$ty(<$cfg>::default())), )*
                    _ => None,
                }
            }

            /// The parameters, to be set key by key (an external AQM's are kept as
            /// written).
            pub(crate) fn fields_mut(&mut self) -> Option<&mut dyn Fields> {
                match self {
                    $( QueueConfig::$ty(c) => Some(c), )*
                    QueueConfig::External(_) => None,
                }
            }

            /// Whether the discipline must hold its packets ([`crate::Qdisc`]): it
            /// decides at dequeue or schedules among several queues. The others decide
            /// on arrival only ([`crate::QueueDiscipline`]) and leave the FIFO to their
            /// owner.
            pub fn holds_packets(&self) -> bool {
                match self {
                    $( QueueConfig::$ty(_) => holds!($kind), )*
                    QueueConfig::External(e) => e.holds_packets,
                }
            }

            /// Whether the discipline may discard a packet already waiting (Random Drop,
            /// drop-from-front on overflow, CoDel's drops at dequeue, FQ-CoDel's drops
            /// from the fattest flow) instead of, or besides, the arriving one.
            pub fn may_evict(&self) -> bool {
                match self {
                    $( QueueConfig::$ty(c) => c.may_evict(), )*
                    QueueConfig::External(_) => false,
                }
            }

            /// Packet limit given in the configuration, if any.
            pub fn limit_packets(&self) -> Option<u64> {
                match self {
                    $( QueueConfig::$ty(c) => c.limit_packets(), )*
                    QueueConfig::External(e) => e.limit_packets(),
                }
            }

            /// The same configuration with every quantity a number in SI units
            /// (seconds, b/s), as the normalised scenario shows it; an error names a
            /// string that does not parse.
            pub fn normalized(&self) -> Result<QueueConfig> {
                let mut c = self.clone();
                match &mut c {
                    $( QueueConfig::$ty(k) => k.normalize()?, )*
                    QueueConfig::External(_) => {}
                }
                Ok(c)
            }

            /// Validate and build the arrival-time discipline. Errors name the parameter
            /// (without a path; callers add theirs with [`crate::AqmError::at`]); a
            /// discipline that holds its packets is refused, naming
            /// [`QueueConfig::build_qdisc`].
            pub fn build(&self, ctx: &BuildContext) -> Result<AnyAqm> {
                match self {
                    $( QueueConfig::$ty(c) => build_aqm!($kind $ty c ctx self), )*
                    QueueConfig::External(e) if !e.holds_packets => {
                        Ok(AnyAqm::External(External(e.build(ctx)?)))
                    }
                    QueueConfig::External(_) => Err(self.arrival_only()),
                }
            }

            /// Validate and build the discipline as a queue that holds packets of type
            /// `P`: an arrival-time discipline over a [`Fifo`], or a scheduler.
            pub fn build_qdisc<P: Packet>(&self, ctx: &BuildContext) -> Result<AnyQdisc<P>> {
                Ok(match self {
                    $( QueueConfig::$ty(c) => build_qdisc!($kind $ty c ctx), )*
                    QueueConfig::External(e) if !e.holds_packets => {
                        AnyQdisc::Fifo(Fifo::new(AnyAqm::External(External(e.build(ctx)?))))
                    }
                    QueueConfig::External(e) => AnyQdisc::External(ExternalQdisc::new(e.build(ctx)?)),
                })
            }
        }
    };
}

/// `QueueConfig::build`'s arm of a line of kind `arrival` or `qdisc`.
macro_rules! build_aqm {
    (arrival $ty:ident $c:ident $ctx:ident $self:ident) => {
        Ok(AnyAqm::$ty(BuildAqm::build($c, $ctx)?))
    };
    (qdisc $ty:ident $c:ident $ctx:ident $self:ident) => {{
        let _ = ($c, $ctx);
        Err($self.arrival_only())
    }};
}

/// `QueueConfig::build_qdisc`'s arm of a line of kind `arrival` or `qdisc`.
macro_rules! build_qdisc {
    (arrival $ty:ident $c:ident $ctx:ident) => {
        AnyQdisc::Fifo(Fifo::new(AnyAqm::$ty(BuildAqm::build($c, $ctx)?)))
    };
    (qdisc $ty:ident $c:ident $ctx:ident) => {
        AnyQdisc::$ty(BuildQdisc::build::<P>($c, $ctx)?)
    };
}

builtin_aqms!(queue_config);

impl QueueConfig {
    /// The error of [`QueueConfig::build`] on a discipline that holds its packets.
    fn arrival_only(&self) -> AqmError {
        let arrival_only: Vec<&str> = QUEUE_TYPES
            .iter()
            .copied()
            .filter(|k| !QueueConfig::default_of(k).is_some_and(|c| c.holds_packets()))
            .collect();
        AqmError::config(
            "type",
            format!(
                "`{}` decides at dequeue or schedules among queues, so it needs a queue that \
                 holds its packets (QueueConfig::build_qdisc); this arrival-time path takes \
                 only {}",
                self.kind(),
                arrival_only.join(", ")
            ),
        )
    }
}

/// Read a queue table (`{ type = "red", limit = 100, ... }`) from any serde source:
/// the one reader of queue configurations. `path` is where the table stands
/// (`link[2].queue_ab`, or empty); every error names the key at fault under it
/// (`link[2].queue_ab.min_th`, `link[2].queue_ab.type: missing; ...`). The result is
/// not yet validated: [`QueueConfig::build`] checks the ranges.
pub fn parse_queue<'de, D: Deserializer<'de>>(table: D, path: &str) -> Result<QueueConfig> {
    QueueTable::deserialize(table).map_err(|e| crate::AqmError::config(path, e))?.config(path)
}

/// Deserializing a `QueueConfig` reads its table with [`QueueTable`]; an error's
/// message starts with the key at fault.
impl<'de> Deserialize<'de> for QueueConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<QueueConfig, D::Error> {
        QueueTable::deserialize(d)?.config("").map_err(serde::de::Error::custom)
    }
}
