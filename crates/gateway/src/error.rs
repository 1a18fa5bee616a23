//! The crate's one error type.

use std::io;

/// What can stop the gateway or its tools. Every variant is raised before forwarding
/// starts (configuration, sockets, the ready file) or ends the run (a socket failing
/// mid-run, the statistics file, an AQM from outside the crate failing on a packet);
/// a packet the gateway cannot forward is counted, never an error. The binary prints the
/// message and exits with status 2.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The configuration is unusable: a file that does not parse, an unknown key or
    /// flag, a missing or contradictory field. The message names the field or flag.
    /// Nothing has started; the caller must fix the configuration.
    #[error("{0}")]
    Config(String),
    /// A value is out of its range: a rate, a delay, a time, or a queue table's
    /// parameter (`queue_ab.max_th = 3 is invalid: allowed > min_th`). Nothing has
    /// started; the caller must fix the named field.
    #[error(transparent)]
    Param(#[from] aqm::AqmError),
    /// A file could not be read or written: the configuration, the ready file or the
    /// statistics. Before the run nothing has started; at its end the statistics are
    /// lost (the caller may run again).
    #[error("{path}: {source}")]
    File {
        path: String,
        #[source]
        source: io::Error,
    },
    /// A raw socket could not be opened on an interface (no such interface, or no
    /// CAP_NET_RAW / CAP_NET_ADMIN). Nothing has been forwarded; the caller must fix
    /// the interface name or the privileges.
    #[error("cannot open a raw socket on {iface}: {source}{}", privilege_hint(.source))]
    Open {
        iface: String,
        #[source]
        source: io::Error,
    },
    /// Receiving on an open socket failed (the interface went away). The run stops
    /// without statistics; the caller cannot go on with this interface.
    #[error("receive on {iface}: {source}")]
    Receive {
        iface: String,
        #[source]
        source: io::Error,
    },
    /// An AQM from outside the `aqm` crate (a Python class, a plugin) failed on a
    /// packet: it raised, panicked or gave an answer it may not give. The message names
    /// the AQM, the method, the time since the gateway started and the flow. The run
    /// stops without statistics; the caller must fix the AQM.
    #[error("{0}")]
    Aqm(String),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, GatewayError>;

fn privilege_hint(e: &io::Error) -> &'static str {
    if e.kind() == io::ErrorKind::PermissionDenied {
        " (run as root or with CAP_NET_RAW and CAP_NET_ADMIN)"
    } else {
        ""
    }
}

impl GatewayError {
    /// A file error for `path`.
    pub fn file(path: &str, source: io::Error) -> GatewayError {
        GatewayError::File { path: path.to_string(), source }
    }
}
