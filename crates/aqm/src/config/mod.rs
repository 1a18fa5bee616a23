//! Configurations as data: the same structure is read from a scenario's TOML
//! (`queue = { type = "red", ... }`), from a gateway's flags and from Python keyword
//! arguments, by one reader ([`parse_queue`], [`QueueTable`]), and validated in one
//! place, [`QueueConfig::build`], with errors naming the parameter.
//!
//! - `table`: reading a table key by key, whatever its source.
//! - `params`: each discipline's fields and defaults.
//! - `build`: checking a configuration and building the discipline.

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::Result;
use crate::units::{Dimension, Quantity};

mod build;
mod modern;
mod params;
mod table;

pub use params::{
    AredConfig, BlueConfig, ChokeConfig, CodelConfig, CodelFields, DropTailConfig, DualPi2Config,
    FengConfig, FqCodelConfig, FqPieConfig, FredConfig, PiConfig, PieConfig, RandomDropConfig,
    RedConfig, RedFields, SfbConfig,
};
use table::Fields;
pub use table::QueueTable;

/// Link rate assumed for idle-time aging and automatic parameters when neither the
/// configuration nor the caller (the simulator passes the real link rate) gives one.
pub const DEFAULT_LINK_RATE_BPS: f64 = 10e6;
/// Seed used when neither the configuration nor the caller gives one.
pub const DEFAULT_SEED: u64 = 1;

/// What the owner of the queue knows that the configuration may leave out.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildContext {
    /// Rate of the link the queue feeds, b/s.
    pub link_rate_bps: Option<f64>,
    /// Seed for this queue's random stream (a `seed` in the configuration wins).
    pub seed: Option<u64>,
}

/// Declares [`QueueConfig`], [`QUEUE_TYPES`] and the lookups by name from the one
/// table of disciplines: variant, configuration type, `type` name.
macro_rules! disciplines {
    ($($variant:ident($config:ty) = $name:literal,)*) => {
        /// A queue discipline and its parameters, tagged by `type`. Serialized as its
        /// table with `type` first and every default filled in.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum QueueConfig {
            $( #[serde(rename = $name)] $variant($config), )*
        }

        /// The `type` names accepted in configurations.
        pub const QUEUE_TYPES: &[&str] = &[$($name),*];

        impl QueueConfig {
            /// The `type` name.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( QueueConfig::$variant(_) => $name, )*
                }
            }

            /// The discipline named `kind` with every parameter at its default, if
            /// `kind` is one of [`QUEUE_TYPES`].
            pub fn default_of(kind: &str) -> Option<QueueConfig> {
                match kind {
                    $( $name => Some(QueueConfig::$variant(<$config>::default())), )*
                    _ => None,
                }
            }

            /// The parameters, to be set key by key.
            fn fields_mut(&mut self) -> &mut dyn Fields {
                match self {
                    $( QueueConfig::$variant(c) => c, )*
                }
            }
        }
    };
}

disciplines! {
    DropTail(DropTailConfig) = "droptail",
    RandomDrop(RandomDropConfig) = "randomdrop",
    Red(RedConfig) = "red",
    Ared(AredConfig) = "ared",
    FengAred(FengConfig) = "feng_ared",
    Fred(FredConfig) = "fred",
    Codel(CodelConfig) = "codel",
    FqCodel(FqCodelConfig) = "fq_codel",
    FqPie(FqPieConfig) = "fq_pie",
    Pie(PieConfig) = "pie",
    Blue(BlueConfig) = "blue",
    Pi(PiConfig) = "pi",
    Choke(ChokeConfig) = "choke",
    DualPi2(DualPi2Config) = "dualpi2",
    Sfb(SfbConfig) = "sfb",
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

impl QueueConfig {
    /// Whether the discipline may discard a packet already waiting (Random Drop,
    /// drop-from-front on overflow, CoDel's drops at dequeue, FQ-CoDel's drops from the
    /// fattest flow) instead of, or besides, the arriving one.
    pub fn may_evict(&self) -> bool {
        match self {
            QueueConfig::DropTail(c) => c.drop_front,
            QueueConfig::RandomDrop(_) => true,
            QueueConfig::Red(c) => c.red.drop_front,
            QueueConfig::Ared(c) => c.red.drop_front,
            QueueConfig::FengAred(c) => c.red.drop_front,
            // The packet-holding queues may discard queued packets (CoDel at dequeue,
            // FQ-CoDel from the fattest flow, CHOKe's matched victim, DualPI2 on overload).
            QueueConfig::Codel(_)
            | QueueConfig::FqCodel(_)
            | QueueConfig::Pie(_)
            | QueueConfig::Choke(_)
            | QueueConfig::DualPi2(_) => true,
            // FQ-PIE drops the arrival, never a queued packet.
            QueueConfig::FqPie(_) => false,
            QueueConfig::Fred(_)
            | QueueConfig::Blue(_)
            | QueueConfig::Pi(_)
            | QueueConfig::Sfb(_) => false,
        }
    }

    /// The same configuration with every quantity a number in SI units (seconds,
    /// b/s), as the normalised scenario shows it; an error names a string that does
    /// not parse.
    pub fn normalized(&self) -> Result<QueueConfig> {
        fn num(q: &mut Option<Quantity>, param: &str, dim: Dimension) -> Result<()> {
            if let Some(v) = q {
                *v = Quantity::Number(v.value(param, dim)?);
            }
            Ok(())
        }
        let mut c = self.clone();
        let (rate, idle) = match &mut c {
            QueueConfig::Codel(k) => {
                k.codel.normalize()?;
                return Ok(c);
            }
            QueueConfig::FqCodel(k) => {
                k.codel.normalize()?;
                return Ok(c);
            }
            QueueConfig::DropTail(_)
            | QueueConfig::RandomDrop(_)
            | QueueConfig::Pi(_)
            | QueueConfig::Sfb(_) => {
                return Ok(c);
            }
            QueueConfig::FqPie(p) => {
                p.target = Quantity::Number(p.target.secs("target")?);
                p.tupdate = Quantity::Number(p.tupdate.secs("tupdate")?);
                p.max_burst = Quantity::Number(p.max_burst.secs("max_burst")?);
                return Ok(c);
            }
            QueueConfig::Pie(p) => {
                p.target = Quantity::Number(p.target.secs("target")?);
                p.tupdate = Quantity::Number(p.tupdate.secs("tupdate")?);
                p.max_burst = Quantity::Number(p.max_burst.secs("max_burst")?);
                return Ok(c);
            }
            QueueConfig::Blue(b) => {
                b.freeze_time = Quantity::Number(b.freeze_time.secs("freeze_time")?);
                return Ok(c);
            }
            QueueConfig::DualPi2(d) => {
                d.target = Quantity::Number(d.target.secs("target")?);
                d.tupdate = Quantity::Number(d.tupdate.secs("tupdate")?);
                d.step_thresh = Quantity::Number(d.step_thresh.secs("step_thresh")?);
                d.tshift = Quantity::Number(d.tshift.secs("tshift")?);
                return Ok(c);
            }
            QueueConfig::Choke(c) => (&mut c.red.link_rate_bps, &mut c.red.idle_pkt_time),
            QueueConfig::Red(c) => (&mut c.red.link_rate_bps, &mut c.red.idle_pkt_time),
            QueueConfig::Ared(a) => {
                a.interval = Quantity::Number(a.interval.secs("interval")?);
                a.target_delay = Quantity::Number(a.target_delay.secs("target_delay")?);
                (&mut a.red.link_rate_bps, &mut a.red.idle_pkt_time)
            }
            QueueConfig::FengAred(c) => (&mut c.red.link_rate_bps, &mut c.red.idle_pkt_time),
            QueueConfig::Fred(c) => (&mut c.link_rate_bps, &mut c.idle_pkt_time),
        };
        num(rate, "link_rate_bps", Dimension::Rate)?;
        num(idle, "idle_pkt_time", Dimension::Time)?;
        Ok(c)
    }

    /// Packet limit given in the configuration, if any.
    pub fn limit_packets(&self) -> Option<u64> {
        match self {
            QueueConfig::DropTail(c) => c.limit,
            QueueConfig::RandomDrop(c) => c.limit,
            QueueConfig::Red(c) => c.red.limit,
            QueueConfig::Ared(c) => c.red.limit,
            QueueConfig::FengAred(c) => c.red.limit,
            QueueConfig::Fred(c) => c.limit,
            QueueConfig::Codel(c) => Some(c.limit),
            QueueConfig::FqCodel(c) => Some(c.limit),
            QueueConfig::FqPie(c) => Some(c.limit),
            QueueConfig::Pie(c) => c.limit,
            QueueConfig::Blue(c) => c.limit,
            QueueConfig::Pi(c) => c.limit,
            QueueConfig::Sfb(c) => c.limit,
            QueueConfig::Choke(c) => c.red.limit,
            QueueConfig::DualPi2(c) => c.limit,
        }
    }
}
