//! The one table of the built-in AQMs. A line per AQM:
//!
//! ```text
//! kind module::Type(Config) = "type", "PythonClass", "Name";
//! ```
//!
//! - `kind`: `arrival` for a discipline that decides on arrival and leaves the FIFO to
//!   its owner ([`crate::QueueDiscipline`], built by [`crate::config::BuildAqm`]), or
//!   `qdisc` for a queue that holds its packets ([`crate::Qdisc`], `Type<P>`, built by
//!   [`crate::config::BuildQdisc`]);
//! - `module`: the AQM's file, `src/module.rs`, which holds everything of it: its
//!   parameters (`Config`, a `config_struct!`), their validation, its behaviour, its
//!   trait implementations and its build;
//! - `"type"`: its name in configurations (`queue = { type = "red", ... }`);
//! - `"PythonClass"`: its class in `aqmlab.aqm`; `"Name"`: how the docs list it.
//!
//! From the table come the module declarations and re-exports (`declare_modules!`),
//! [`crate::config::QueueConfig`] and [`crate::config::QUEUE_TYPES`], the dispatch enums
//! ([`crate::AnyAqm`], [`crate::AnyQdisc`]) and [`AQMS`], the description the Python
//! classes and the docs' lists are generated from. Adding an AQM is its file and its
//! line here.

use crate::config::fields::{Fields, Param};

/// Calls `$m! { $($prefix)* <the table> }`.
macro_rules! builtin_aqms {
    ($m:ident $($prefix:tt)*) => {
        $m! { $($prefix)*
            arrival droptail::DropTail(DropTailConfig) = "droptail", "DropTail", "Drop Tail";
            arrival randomdrop::RandomDrop(RandomDropConfig) = "randomdrop", "RandomDrop", "Random Drop";
            arrival red::Red(RedConfig) = "red", "Red", "RED";
            arrival ared::AdaptiveRed(AredConfig) = "ared", "AdaptiveRed", "Adaptive RED";
            arrival feng::FengAdaptiveRed(FengConfig) = "feng_ared", "FengAdaptiveRed", "Feng's Adaptive RED";
            arrival fred::Fred(FredConfig) = "fred", "Fred", "FRED";
            qdisc codel::Codel(CodelConfig) = "codel", "CoDel", "CoDel";
            qdisc fq_codel::FqCodel(FqCodelConfig) = "fq_codel", "FqCoDel", "FQ-CoDel";
            qdisc fq_pie::FqPie(FqPieConfig) = "fq_pie", "FqPie", "FQ-PIE";
            qdisc pie::Pie(PieConfig) = "pie", "Pie", "PIE";
            arrival blue::Blue(BlueConfig) = "blue", "Blue", "BLUE";
            arrival pi::Pi(PiConfig) = "pi", "Pi", "PI";
            qdisc choke::Choke(ChokeConfig) = "choke", "Choke", "CHOKe";
            qdisc dualpi2::DualPi2(DualPi2Config) = "dualpi2", "DualPi2", "DualPI2";
            arrival sfb::Sfb(SfbConfig) = "sfb", "Sfb", "SFB";
            qdisc cobalt::Cobalt(CobaltConfig) = "cobalt", "Cobalt", "COBALT";
            qdisc fq_cobalt::FqCobalt(FqCobaltConfig) = "fq_cobalt", "FqCobalt", "FQ-COBALT";
        }
    };
}

/// Calls `$m! { arrival [<arrival lines>] qdisc [<qdisc lines>] }`, the table's lines
/// split by kind (each without its kind word), in the table's order:
/// `builtin_aqms!(partition $m [] [])`.
macro_rules! partition {
    ($m:ident [$($a:tt)*] [$($q:tt)*]) => {
        $m! { arrival [$($a)*] qdisc [$($q)*] }
    };
    ($m:ident [$($a:tt)*] [$($q:tt)*]
     arrival $mo:ident::$ty:ident($cfg:ident) = $n:literal, $c:literal, $t:literal; $($rest:tt)*) => {
        partition! { $m [$($a)* $mo::$ty($cfg) = $n, $c, $t;] [$($q)*] $($rest)* }
    };
    ($m:ident [$($a:tt)*] [$($q:tt)*]
     qdisc $mo:ident::$ty:ident($cfg:ident) = $n:literal, $c:literal, $t:literal; $($rest:tt)*) => {
        partition! { $m [$($a)*] [$($q)* $mo::$ty($cfg) = $n, $c, $t;] $($rest)* }
    };
}

/// The AQMs' modules, and their types at the crate's root (`lib.rs`).
macro_rules! declare_modules {
    ($($kind:ident $mo:ident::$ty:ident($cfg:ident) = $n:literal, $c:literal, $t:literal;)*) => {
        $( pub mod $mo; pub use $mo::$ty; )*
    };
}

/// A built-in AQM, as the table and its configuration describe it.
#[derive(Clone, Copy, Debug)]
pub struct AqmInfo {
    /// The `type` name in configurations.
    pub type_name: &'static str,
    /// The class in `aqmlab.aqm`.
    pub class: &'static str,
    /// The name the docs list it by.
    pub name: &'static str,
    /// Its module, `src/<module>.rs`.
    pub module: &'static str,
    /// Whether it holds its packets (a `qdisc` line).
    pub holds_packets: bool,
    /// The doc comment of its configuration, line by line: what it is and its source
    /// first, then its defaults.
    pub doc: &'static [&'static str],
    /// Its keys, in order, described.
    pub params: fn() -> Vec<Param>,
}

/// The keys of configuration type `C`, described.
fn params_of<C: Fields + Default>() -> Vec<Param> {
    let mut out = Vec::new();
    C::default().describe(&mut out);
    out
}

/// Whether a line of kind `arrival` or `qdisc` holds its packets.
macro_rules! holds {
    (arrival) => {
        false
    };
    (qdisc) => {
        true
    };
}

macro_rules! aqm_infos {
    ($($kind:ident $mo:ident::$ty:ident($cfg:ident) = $n:literal, $c:literal, $t:literal;)*) => {
        /// Every built-in AQM, in the table's order.
        pub const AQMS: &[AqmInfo] = &[$(
            AqmInfo {
                type_name: $n,
                class: $c,
                name: $t,
                module: stringify!($mo),
                holds_packets: holds!($kind),
                doc: crate::$mo::$cfg::DOC,
                params: params_of::<crate::$mo::$cfg>,
            },
        )*];
    };
}
builtin_aqms!(aqm_infos);
