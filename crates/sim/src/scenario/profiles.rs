//! Profiles in a scenario (`crate::profile`): the `profile` keys read and the keys they
//! set written into the scenario's tables before the sections are read, so that every
//! section reader sees one table with the profile's keys in it and checks them as if
//! written. A key written in a table wins; then the table's own profile (a flow's, a
//! queue table's); then the scenario's; then the defaults. What each profile filled is
//! recorded per table ([`ProfileUse`], the summary's `profiles`).

use serde::Serialize;
use toml::{Table, Value};

use super::read::de;
use super::spec::{CommonSpec, TcpSpec, keys_of};
use crate::error::{Result, SimError};
use crate::profile::{self, Key, Profile};

/// A profile applied to one table of the scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileUse {
    /// The table: `scenario`, `flow[2]`, `link[0].queue_ab`, `link[0]`.
    pub scope: String,
    /// The profile's name.
    pub profile: String,
    /// The keys it filled in that table, with their values.
    pub keys: Table,
}

/// Keys that a profile fills only when their partner is not written, since a table may
/// give one of them only.
const EXCLUSIVE: &[(&str, &str)] = &[("init_cwnd", "initial_window")];

/// Keys that need SACK: a profile fills them only into a flow that has it. (BBR's
/// keys, `bbr_`, go only into BBR flows.)
const NEED_SACK: &[&str] = &["prr", "rack", "rto_sack"];

/// Keys a profile fills only into flows of some variants: Linux's HyStart is
/// tcp_cubic.c's (its `hystart` parameter; Linux's reno, tcp_cong.c, has none), and its
/// Reno growth is that of the variants whose window grows as Reno's (tcp_cong.c's
/// `tcp_reno_cong_avoid`, which reno and dctcp use).
const FOR_VARIANTS: &[(&str, &[&str])] =
    &[("hystart", &["cubic"]), ("reno_growth", &["tahoe", "reno", "newreno", "dctcp"])];

/// Does the scenario `v` name a profile anywhere (at its top, on a flow, in a queue
/// table)?
pub(super) fn named(v: &Value) -> bool {
    let has = |t: &Value| t.get("profile").is_some();
    let tables = |key: &str| v.get(key).and_then(Value::as_array).into_iter().flatten();
    has(v)
        || tables("flow").any(has)
        || tables("link").any(|l| {
            has(l) || ["queue", "queue_ab", "queue_ba"].iter().any(|q| l.get(q).is_some_and(has))
        })
}

/// The record of a scenario that names no profile: `rfc`'s, which fills nothing.
pub(super) fn none() -> Vec<ProfileUse> {
    vec![ProfileUse {
        scope: "scenario".into(),
        profile: profile::PROFILES[0].name.into(),
        keys: Table::new(),
    }]
}

/// Take the `profile` keys out of the scenario `v` (a table), fill in the keys the
/// profiles set, and return the record of what each filled (the scenario's own
/// profile first, `rfc` when none is named).
pub(super) fn apply(v: &mut Value) -> Result<Vec<ProfileUse>> {
    let Some(top) = v.as_table_mut() else { return Ok(Vec::new()) };
    let base = take(top, "profile")?.unwrap_or(&profile::PROFILES[0]);
    let mut uses = vec![ProfileUse {
        scope: "scenario".into(),
        profile: base.name.into(),
        keys: Table::new(),
    }];
    if let Some(Value::Array(flows)) = top.get_mut("flow") {
        for (i, f) in flows.iter_mut().enumerate() {
            if let Value::Table(t) = f {
                flow(t, &format!("flow[{i}]"), base, &mut uses)?;
            }
        }
    }
    if let Some(Value::Array(links)) = top.get_mut("link") {
        for (i, l) in links.iter_mut().enumerate() {
            if let Value::Table(t) = l {
                link(t, &format!("link[{i}]"), base, &mut uses)?;
            }
        }
    }
    Ok(uses)
}

/// Remove `table`'s `profile` key (at `path`), and return the profile it names.
fn take(table: &mut Table, path: &str) -> Result<Option<&'static Profile>> {
    let Some(v) = table.remove("profile") else { return Ok(None) };
    let p = if path.is_empty() { "profile".to_string() } else { format!("{path}.profile") };
    let name: String = de(&v, &p)?;
    match profile::find(&name) {
        Some(prof) => Ok(Some(prof)),
        None => {
            Err(SimError::invalid(&p, format!("{name:?}"), format!("one of {}", profile::names())))
        }
    }
}

/// Fill `table` (at `scope`) from its own profile, then the scenario's, with the keys
/// `keys_of` picks from a profile; record what each filled.
fn fill(
    table: &mut Table,
    scope: &str,
    own: Option<&'static Profile>,
    base: &'static Profile,
    keys_of: impl Fn(&'static Profile) -> Vec<Key>,
    accept: impl Fn(&Table, &str) -> bool,
    uses: &mut Vec<ProfileUse>,
) {
    let base = own.is_none_or(|o| o.name != base.name).then_some(base);
    for prof in own.into_iter().chain(base) {
        let mut filled = Table::new();
        for key in keys_of(prof) {
            if table.contains_key(key.key) || !accept(table, key.key) {
                continue;
            }
            table.insert(key.key.into(), key.val.value());
            filled.insert(key.key.into(), key.val.value());
        }
        if !filled.is_empty() || own.is_some_and(|o| o.name == prof.name) {
            uses.push(ProfileUse { scope: scope.into(), profile: prof.name.into(), keys: filled });
        }
    }
}

/// The keys a TCP flow's table takes (found once).
fn flow_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        keys_of::<CommonSpec>().iter().chain(keys_of::<TcpSpec>()).copied().collect()
    })
}

/// A `[[flow]]` table: the profiles' TCP keys for TCP, TELNET and web flows.
fn flow(
    t: &mut Table,
    scope: &str,
    base: &'static Profile,
    uses: &mut Vec<ProfileUse>,
) -> Result<()> {
    let own = take(t, scope)?;
    let ty = t.get("type").and_then(Value::as_str).unwrap_or("tcp").to_string();
    if !matches!(ty.as_str(), "tcp" | "telnet" | "web") {
        return Ok(());
    }
    let known = flow_keys();
    let web = ty == "web";
    let accept = |t: &Table, key: &str| {
        let partner = EXCLUSIVE.iter().find_map(|&(a, b)| {
            if a == key {
                Some(b)
            } else if b == key {
                Some(a)
            } else {
                None
            }
        });
        let sack = t.get("sack").and_then(Value::as_bool).unwrap_or(false);
        let variant = t.get("variant").and_then(Value::as_str).unwrap_or("newreno");
        let bbr = variant == "bbr";
        let for_variant = FOR_VARIANTS.iter().all(|&(k, vs)| k != key || vs.contains(&variant));
        known.contains(&key)
            && partner.is_none_or(|p| !t.contains_key(p))
            && !(web && key == "sack")
            && (sack || !NEED_SACK.contains(&key))
            && (bbr || !key.starts_with("bbr_"))
            && for_variant
    };
    // (sack first, so that the keys that need it see it)
    let keys = |p: &'static Profile| {
        let mut ks = p.tcp.to_vec();
        ks.sort_by_key(|k| k.key != "sack");
        ks
    };
    fill(t, scope, own, base, keys, accept, uses);
    Ok(())
}

/// A `[[link]]` table: the scenario's link keys, and each queue table's keys.
fn link(
    t: &mut Table,
    scope: &str,
    base: &'static Profile,
    uses: &mut Vec<ProfileUse>,
) -> Result<()> {
    if t.contains_key("profile") {
        let p = format!("{scope}.profile");
        return Err(SimError::at(
            &p,
            "not a link key; name a profile at the top of the scenario or in a queue table",
        ));
    }
    fill(t, scope, None, base, |p| p.link.to_vec(), |_, _| true, uses);
    for side in ["queue", "queue_ab", "queue_ba"] {
        if let Some(Value::Table(q)) = t.get_mut(side) {
            let path = format!("{scope}.{side}");
            let own = take(q, &path)?;
            let ty = q.get("type").and_then(Value::as_str).unwrap_or("").to_string();
            let keys = |p: &'static Profile| {
                p.queues
                    .iter()
                    .filter(|g| g.types.contains(&ty.as_str()))
                    .flat_map(|g| g.keys.iter().copied())
                    .collect()
            };
            fill(q, &path, own, base, keys, |_, _| true, uses);
        }
    }
    Ok(())
}
