//! Scenario errors name the field and its path.

use super::*;

fn err(toml: &str) -> String {
    match Scenario::from_toml_str(toml) {
        Ok(_) => panic!("accepted: {toml}"),
        Err(e) => e.to_string(),
    }
}

const LINK: &str =
    "duration = 10\n[[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n";

/// Invalid scenarios are rejected with the path of the field and what is allowed.
#[test]
fn messages_name_the_field() {
    let e = err(&format!("{LINK}[[flow]]\nsrc = \"a\"\ndst = \"zz\""));
    assert!(e.starts_with("flow[0].dst") && e.contains("\"b\"") || e.contains("a, b"), "{e}");
    let e = err("duration = 10\n[[link]]\na = \"a\"\nb = \"b\"\nrate = -5\ndelay = \"1ms\"");
    assert!(e.starts_with("link[0].rate") && e.contains("> 0"), "{e}");
    let e = err(&format!("{LINK}[[flow]]\nsrc = \"a\"\ndst = \"b\"\nmax_windw = 3"));
    assert!(e.starts_with("flow[0].max_windw") && e.contains("max_window"), "{e}");
    let e = err("duration = 10\n[[link]]\na = \"a\"\nb = \"b\"\nrate = 1e6\ndelay = 0\nfoo = 1");
    assert!(e.starts_with("link[0].foo: unknown field") && e.contains("queue_ab"), "{e}");
    let e = err(&format!(
        "{LINK}[[link]]\na = \"b\"\nb = \"c\"\nrate = 1e6\ndelay = 0\n[[link]]\na = \"c\"\nb = \"d\"\nrate = 1e6\ndelay = 0\n\
         queue_ab = {{ type = \"red\", limit = 100, min_th = 50, max_th = 20 }}"
    ));
    assert!(e.starts_with("link[2].queue_ab.min_th") && e.contains("< max_th"), "{e}");
    let e = err(&format!("{LINK}queue = {{ type = \"red\", limit = 100, min_tj = 5 }}"));
    assert!(e.starts_with("link[0].queue.min_tj: unknown field") && e.contains("max_th"), "{e}");
    let e = err(&format!("{LINK}queue = {{ type = \"sfq\" }}"));
    assert!(e.starts_with("link[0].queue.type") && e.contains("droptail"), "{e}");
    let e = err(&format!(
        "{LINK}[[link]]\na = \"c\"\nb = \"d\"\nrate = 1e6\ndelay = 0\n[[flow]]\nsrc = \"a\"\ndst = \"d\""
    ));
    assert!(e.starts_with("flow[0]") && e.contains("no route"), "{e}");
    let e = err(&format!(
        "{LINK}[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"10 parsecs\""
    ));
    assert!(e.starts_with("flow[0].rate") && e.contains("15Mbps"), "{e}");
    let e = err(&format!("warmup = 20\n{LINK}"));
    assert!(e.starts_with("warmup"), "{e}");
    let e = err(&format!(
        "{LINK}[[flow]]\ntype = \"tcp\"\nvariant = \"vegas\"\nsrc = \"a\"\ndst = \"b\""
    ));
    assert!(e.starts_with("flow[0].variant") && e.contains("newreno"), "{e}");
    let e = err(&format!("threads = 3\n{LINK}"));
    assert!(e.starts_with("threads") && e.contains("1 or 2"), "{e}");
}

/// Each scenario of the corpus (`invalid_scenarios.toml`) is rejected with the path
/// the corpus gives: unknown keys at every level, wrong types, out-of-range numbers,
/// bad enums and units, missing keys, keys of another flow type, bad names.
#[test]
fn corpus_errors_name_their_path() {
    #[derive(serde::Deserialize)]
    struct Case {
        path: String,
        toml: String,
    }
    #[derive(serde::Deserialize)]
    struct Corpus {
        case: Vec<Case>,
    }
    let text = include_str!("invalid_scenarios.toml");
    let corpus: Corpus = toml::from_str(text).unwrap();
    assert!(corpus.case.len() >= 60);
    let link = "[[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"";
    for c in corpus.case {
        let e = err(&c.toml.replace("{LINK}", link));
        let rest = e.strip_prefix(c.path.as_str()).unwrap_or("");
        assert!(rest.starts_with(": ") || rest.starts_with(" = "), "{}: {e}", c.path);
    }
}
