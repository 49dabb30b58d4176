//! Loading whole config texts: defaults, coercions, errors.

use super::*;
use crate::model::Level;
use crate::score::{VaultConfig, Weights};

fn load(text: &str) -> AnalysisConfig {
    match config_from_yaml(text) {
        Ok(c) => c,
        Err(e) => panic!("{text:?} should load: {e}"),
    }
}

fn error(text: &str) -> String {
    match config_from_yaml(text) {
        Ok(c) => panic!("{text:?} should be refused, got {c:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn no_file_and_empty_file_differ_only_in_finance_and_hr() {
    let none = AnalysisConfig::default();
    assert_eq!(none.detectors, DetectorToggles::ALL_ON);
    assert_eq!(none.project_name, "agentleak-project");
    assert_eq!(none.channels.len(), 8);
    assert_eq!(none.channels[0], "user_input");
    assert_eq!(none.channels[7], "generated_file");
    assert!(none.redact_values);
    assert_eq!(none.scoring.fail_below, 40);
    assert!(none.scoring.block_on_critical);
    assert_eq!(none.scoring.weights, Weights::DEFAULT);
    assert_eq!(none.detection.mode, "fast");
    assert_eq!(none.detection.llm_judge_api_key_env, "OPENAI_API_KEY");
    let expected = AnalysisConfig { detectors: DetectorToggles::FILE_DEFAULTS, ..AnalysisConfig::default() };
    for text in ["", "\n", "# nothing here\n", "~", "null", "{}", "---\n", "unknown_section: {a: 1}\n"] {
        let file = load(text);
        assert_eq!(file, expected, "{text:?}");
        assert!(!file.detectors.finance && !file.detectors.hr, "{text:?}");
    }
}

#[test]
fn a_document_that_is_not_a_mapping_is_refused() {
    assert_eq!(
        error("[1, 2]"),
        "top level: the config must be a YAML mapping of sections (such as `detectors:` or `scoring:`), but it is a list"
    );
    assert!(error("just words").ends_with("but it is \"just words\""));
    assert!(error("0").ends_with("but it is 0"));
}

#[test]
fn detector_toggles_read_and_write_by_detector() {
    let mut t = DetectorToggles::FILE_DEFAULTS;
    let on: Vec<&str> = t.iter().filter(|(_, on)| *on).map(|(b, _)| b.key()).collect();
    assert_eq!(on, ["pii", "secrets", "healthcare", "keyname"]);
    t.set(crate::detect::Builtin::Hr, true);
    t.set(crate::detect::Builtin::Pii, false);
    assert_eq!(t, DetectorToggles { pii: false, hr: true, ..DetectorToggles::FILE_DEFAULTS });
    assert!(t.get(crate::detect::Builtin::Hr) && !t.get(crate::detect::Builtin::Finance));
    assert_eq!(DetectorToggles::ALL_ON.iter().count(), 6);
}

#[test]
fn detector_toggles_take_lax_booleans_and_ignore_unknown_names() {
    let c =
        load("detectors: {pii: no, secrets: 'off', healthcare: 0, finance: 'yes', hr: 'on', keyname: 'f', regex: 7}\n");
    assert_eq!(
        c.detectors,
        DetectorToggles { pii: false, secrets: false, healthcare: false, finance: true, hr: true, keyname: false }
    );
    let c = load("detectors: {finance: 1, hr: 'True'}\n");
    assert_eq!(c.detectors, DetectorToggles::ALL_ON);
    assert_eq!(
        error("detectors: {hr: maybe}"),
        "detectors.hr: expected true or false (or yes/no, on/off, 1/0), got \"maybe\""
    );
    assert!(error("detectors: [pii]").starts_with("detectors: expected a mapping"));
    assert!(error("detectors:\n").starts_with("detectors: expected a mapping of settings, got null"));
}

#[test]
fn project_channels_and_privacy() {
    let c = load(
        "project: {name: clinic, description: d}\nchannels: [log, not_a_channel]\n\
         privacy: {redact_values: 'false', subject_ledger: ledger.db, store_raw_traces: yes}\n",
    );
    assert_eq!(c.project_name, "clinic");
    assert_eq!(c.channels, vec!["log", "not_a_channel"]);
    assert!(c.scans_channel("log") && c.scans_channel("not_a_channel") && !c.scans_channel("tool_call"));
    assert!(!c.redact_values);
    assert_eq!(c.subject_ledger, "ledger.db");
    assert!(error("project: {name: 5}").starts_with("project.name: expected text, got 5"));
    assert!(error("channels: log").starts_with("channels: expected a list, got \"log\""));
    assert!(error("channels: [log, 3]").starts_with("channels[1]: expected text"));
    assert!(error("privacy: {redact_values: nope}").starts_with("privacy.redact_values:"));
    assert!(error("privacy: {store_raw_traces: nope}").starts_with("privacy.store_raw_traces:"));
}

#[test]
fn custom_rules_defaults_clamping_and_late_severity_check() {
    let c = load(
        "custom_detectors:\n  - {name: a, pattern: 'x+'}\n  - {name: b, pattern: y, severity: HIGH, data_type: t, \
         confidence: 1.5, recommendation: fix it}\n  - {name: c, pattern: z, confidence: '-2'}\n  - {name: d, pattern: w, confidence: '0.5'}\n",
    );
    let rules = &c.custom_detectors;
    assert_eq!(rules.len(), 4);
    assert_eq!(
        rules[0],
        CustomRule {
            name: "a".into(),
            pattern: "x+".into(),
            severity: "medium".into(),
            data_type: "custom".into(),
            confidence: 0.9,
            recommendation: None,
        }
    );
    assert_eq!(rules[1].severity(), Ok(Severity::High));
    assert_eq!(rules[1].data_type, "t");
    assert_eq!(rules[1].confidence, 1.0);
    assert_eq!(rules[1].recommendation.as_deref(), Some("fix it"));
    assert_eq!(rules[2].confidence, 0.0);
    assert_eq!(rules[3].confidence, 0.5);
    assert_eq!(c.check_runnable(), Ok(DetectionMode::Fast));

    // An unknown severity loads, and fails when a run starts.
    let c = load("custom_detectors: [{name: big, pattern: x, severity: extreme}]");
    assert_eq!(c.custom_detectors[0].severity, "extreme");
    let err = c.check_runnable().unwrap_err();
    assert_eq!(err, StartupError::UnknownSeverity { rule: "big".into(), severity: "extreme".into() });
    assert_eq!(
        err.to_string(),
        "custom detector \"big\": unknown severity \"extreme\"; use low, medium, high or critical"
    );

    assert_eq!(error("custom_detectors: [{name: a}]"), "custom_detectors[0].pattern: is required");
    assert!(error("custom_detectors: [{pattern: a}]").starts_with("custom_detectors[0].name: is required"));
    assert!(
        error("custom_detectors: [{name: a, pattern: 5}]").starts_with("custom_detectors[0].pattern: expected text")
    );
    assert!(error("custom_detectors: [{name: a, pattern: b, severity: ~}]")
        .starts_with("custom_detectors[0].severity: expected text"));
    assert!(error("custom_detectors: [{name: a, pattern: b, confidence: high}]")
        .starts_with("custom_detectors[0].confidence: expected a number"));
    assert!(error("custom_detectors: [{name: a, pattern: b, confidence: .nan}]").contains("got nan"));
    assert!(error("custom_detectors: [x]").starts_with("custom_detectors[0]: a custom detector must be a mapping"));
    assert!(error("custom_detectors: {name: a}").starts_with("custom_detectors: expected a list"));
}

#[test]
fn weights_need_four_strictly_positive_integers() {
    assert_eq!(load("scoring: {weights: [1, 2.0, '3', ' 4 ']}").scoring.weights.values(), [1, 2, 3, 4]);
    assert_eq!(load("scoring: {weights: [2, 4, 6, 8]}").scoring.weights.values(), [2, 4, 6, 8]);
    assert_eq!(
        error("scoring: {weights: [1, 2, 0, 4]}"),
        "scoring.weights: four strictly positive integers are needed for L1..L4 (each at most 1000000000), \
         got [1, 2, 0, 4]"
    );
    assert_eq!(
        error("scoring: {weights: [1, 2, 3]}"),
        "scoring.weights: four strictly positive integers are needed for L1..L4 (each at most 1000000000), \
         got [1, 2, 3]"
    );
    assert!(error("scoring: {weights: [1, 2, 3, 4, 5]}").ends_with("got [1, 2, 3, 4, 5]"));
    assert!(error("scoring: {weights: [1, -2, 3, 4]}").ends_with("got [1, -2, 3, 4]"));
    assert_eq!(
        error("scoring: {weights: [1, 2.5, 3, 4]}"),
        "scoring.weights[1]: expected a whole number, got 2.5 (a number with a fractional part)"
    );
    assert!(error("scoring: {weights: [1, two, 3, 4]}")
        .starts_with("scoring.weights[1]: expected a whole number, got \"two\""));
    assert!(error("scoring: {weights: 1}").starts_with("scoring.weights: expected a list"));
}

#[test]
fn other_scoring_keys() {
    let c = load(
        "scoring:\n  level_overrides: {email: '4', person_name: 3.0, x: 9, y: -1, z: true}\n  fail_below: '60'\n\
         \x20 block_on_critical: 'no'\n  conditional_below: 50\n  unknown: whatever\n",
    );
    let overrides: Vec<(&str, i64)> = c.scoring.level_overrides.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(overrides, vec![("email", 4), ("person_name", 3), ("x", 9), ("y", -1), ("z", 1)]);
    // Out-of-range overrides load and clamp when used.
    assert_eq!(c.scoring.level_for("x"), Some(Level::L4));
    assert_eq!(c.scoring.level_for("y"), Some(Level::L1));
    assert_eq!(c.scoring.fail_below, 60);
    assert!(!c.scoring.block_on_critical);
    assert_eq!(
        error("scoring: {level_overrides: {email: high}}"),
        "scoring.level_overrides.email: expected a whole number, got \"high\""
    );
    assert!(error("scoring: {level_overrides: {1: 2}}")
        .starts_with("scoring.level_overrides (a data type name): expected text"));
    assert!(error("scoring: {level_overrides: [email]}").starts_with("scoring.level_overrides: expected a mapping"));
    assert!(
        error("scoring: {conditional_below: high}").starts_with("scoring.conditional_below: expected a whole number")
    );
    assert!(error("scoring: {fail_below: 40.5}").starts_with("scoring.fail_below: expected a whole number"));
}

#[test]
fn explicit_vaults() {
    let c = load("vault: {levels: {5: 20, 0: 3}, scope_def: audited}");
    let vault = c.scoring.vault.clone().unwrap();
    assert_eq!(vault, VaultConfig { levels: vec![(5, 20), (0, 3)], rho_s: None, scope_def: Some("audited".into()) });
    // Keys clamp at scoring time: L4 20, L1 3 → ρ_S 83 with default weights.
    let (rho_s, profile) = vault.rho_s_and_profile(&Weights::DEFAULT).unwrap();
    assert_eq!((rho_s, profile.counts()), (83, [3, 0, 0, 20]));

    // Numeric-string keys; keys equal after coercion collapse like a dict.
    let c = load("vault:\n  levels: {'1': 10, 2: '5', 1.0: 4, '2.0': 6}\n");
    assert_eq!(c.scoring.vault.unwrap().levels, vec![(1, 4), (2, 6)]);

    let c = load("vault: {rho_s: '60', mode: explicit}");
    assert_eq!(c.scoring.vault, Some(VaultConfig { levels: vec![], rho_s: Some(60), scope_def: None }));
    // A negative count or rho_s fails every run in the reference (when it
    // scores); we refuse the file, naming the key.
    assert_eq!(
        error("vault: {levels: {2: 5, 1: -1}}"),
        "vault.levels.1: the count -1 is negative; vault counts must be 0 or more"
    );
    assert_eq!(error("vault: {rho_s: -4}"), "vault.rho_s: -4 is negative; the vault size must be 0 or more");
    // rho_s wins over levels, so their counts are not checked then.
    assert_eq!(load("vault: {levels: {1: -1}, rho_s: 3}").scoring.vault.unwrap().rho_s, Some(3));
    // Counts whose weighted sum would not fit 64 bits (Python's would).
    assert!(error("vault: {levels: {4: 9223372036854775807}}").starts_with("vault.levels: the counts are too large"));
    assert!(error("vault: {levels: {5: 9223372036854775807, 4: 9223372036854775807}}")
        .starts_with("vault.levels: the counts are too large"));
    assert!(error("scoring: {weights: [1, 2, 3, 1000000001]}").contains("each at most 1000000000"));
    assert_eq!(load("scoring: {weights: [1, 2, 3, 1000000000]}").scoring.weights.values()[3], 1_000_000_000);
    // Zero counts are still an explicit vault.
    assert_eq!(load("vault: {levels: {4: 0}}").scoring.vault.unwrap().levels, vec![(4, 0)]);
    // No levels and no rho_s: no explicit vault, whatever else is set.
    for text in ["vault: {}", "vault: {scope_def: x}", "vault: {levels: {}, rho_s: null}", "vault: {mode: explicit}"] {
        assert_eq!(load(text).scoring.vault, None, "{text}");
    }
    assert!(error("vault: {levels: {one: 1}}").starts_with("vault.levels (the key \"one\"): expected a whole number"));
    assert!(error("vault: {levels: {1: many}}").starts_with("vault.levels.1: expected a whole number"));
    assert!(error("vault: {levels: [1]}").starts_with("vault.levels: expected a mapping"));
    assert!(error("vault: {rho_s: 1.5}").starts_with("vault.rho_s: expected a whole number"));
    assert!(error("vault: {rho_s: 1, scope_def: 5}").starts_with("vault.scope_def: expected text"));
}

#[test]
fn detection_mode_is_checked_at_start_up_not_at_load() {
    let c = load("detection: {mode: bogus}");
    assert_eq!(c.detection.mode, "bogus");
    assert_eq!(c.check_runnable(), Err(StartupError::UnknownMode("bogus".into())));
    assert!(c.detection_status(&|_| None).is_err());

    let c = load("detection: {mode: ''}");
    assert_eq!(c.check_runnable(), Ok(DetectionMode::Fast));

    let c = load(
        "detection:\n  mode: hybrid\n  presidio: {enabled: 'yes', score_threshold: '0.4'}\n\
         \x20 llm_judge: {enabled: true, api_key_env: JUDGE_KEY, model: m, timeout: 5}\n",
    );
    assert!(c.detection.presidio_enabled && c.detection.llm_judge_enabled);
    assert_eq!(c.detection.llm_judge_api_key_env, "JUDGE_KEY");
    let asked = std::cell::RefCell::new(Vec::new());
    let env = |name: &str| {
        asked.borrow_mut().push(name.to_owned());
        None
    };
    let status = c.detection_status(&env).unwrap();
    assert_eq!(asked.borrow().as_slice(), ["JUDGE_KEY"]);
    assert_eq!(status.mode, DetectionMode::Hybrid);
    assert_eq!(status.tiers, vec!["regex", "presidio"]);
    assert_eq!(status.warnings.len(), 1);
    assert!(status.warnings[0].contains("JUDGE_KEY"));
    assert!(status.degraded);
    assert_eq!(c.detection_warnings(&env).unwrap(), status.warnings);

    assert!(error("detection: {mode: 3}").starts_with("detection.mode: expected text"));
    assert!(error("detection: {presidio: {score_threshold: high}}")
        .starts_with("detection.presidio.score_threshold: expected a number"));
    assert!(error("detection: {llm_judge: {enabled: sometimes}}").starts_with("detection.llm_judge.enabled:"));
    assert!(error("detection: {llm_judge: []}").starts_with("detection.llm_judge: expected a mapping"));
}

#[test]
fn unused_sections_are_type_checked_and_unknown_keys_ignored() {
    let c = load(
        "agent: {name: a, endpoint: null}\nscenarios: [{id: s1, enabled: 'no'}]\nreports: {formats: [json]}\n\
         llm: {temperature: '0.3'}\ndefense: {enabled: false, channels: [log]}\npolicy_gate: {fail_on: [hipaa]}\n\
         extra: 1\n",
    );
    assert_eq!(c, AnalysisConfig { detectors: DetectorToggles::FILE_DEFAULTS, ..AnalysisConfig::default() });
    assert_eq!(error("llm: {temperature: hot}"), "llm.temperature: expected a number, got \"hot\"");
    assert!(error("reports: {formats: json}").starts_with("reports.formats: expected a list"));
    assert!(error("scenarios: [{enabled: true}]").starts_with("scenarios[0].id: is required"));
    assert!(error("agent: {endpoint: 5}").starts_with("agent.endpoint: expected text"));
    assert!(error("policy_gate: {fail_on_any: 2}").starts_with("policy_gate.fail_on_any:"));
}

#[test]
fn yaml_details_follow_pyyaml() {
    // YAML 1.1 booleans, last duplicate key wins, anchors and merge keys.
    let c = load(
        "detectors: {pii: false}\ndetectors: {hr: on}\n\
         base: &shared {block_on_critical: off}\nscoring:\n  <<: *shared\n  fail_below: 0x10\n",
    );
    assert!(c.detectors.pii && c.detectors.hr);
    assert!(!c.scoring.block_on_critical);
    assert_eq!(c.scoring.fail_below, 16);
    // Octal and sexagesimal ints, as PyYAML reads them.
    assert_eq!(load("scoring: {fail_below: 010}").scoring.fail_below, 8);
    assert_eq!(load("scoring: {fail_below: '010'}").scoring.fail_below, 10);
    assert_eq!(load("scoring: {fail_below: 1:00}").scoring.fail_below, 60);
    // A date is not text.
    assert!(
        error("project: {name: 2024-01-01}").starts_with("project.name: expected text, got the date/time 2024-01-01")
    );
}

#[test]
fn syntax_errors_give_line_and_column() {
    let err = config_from_yaml("scoring:\n  weights: [1, 2\n").unwrap_err();
    assert!(matches!(err, ConfigError::Syntax { line: 3, column: 1, .. }), "{err:?}");
    assert!(err.to_string().starts_with("line 3, column 1: YAML syntax error: "), "{err}");
    // An unclosed quote is reported where it opens (1-based column).
    let err = config_from_yaml("a: 'open\n").unwrap_err();
    assert!(matches!(err, ConfigError::Syntax { line: 1, column: 4, .. }), "{err:?}");
    // Tabs cannot indent YAML; the message says so.
    let err = config_from_yaml("a: 1\n\tb: 2\n").unwrap_err();
    assert!(matches!(&err, ConfigError::Syntax { message, .. } if message.contains("tab")), "{err:?}");
}

#[test]
fn alias_bomb_fails_fast_with_a_clear_message() {
    // Nine levels of nine aliases: 9^9 ≈ 387 million strings if expanded.
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..9 {
        let p = i - 1;
        text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{p}"); 9].join(", ")));
    }
    let err = config_from_yaml(&text).unwrap_err();
    assert!(matches!(err, ConfigError::TooManyNodes { limit: MAX_NODES, .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("more than 100000 values") && message.contains("alias bomb"), "{message}");
    assert!(message.starts_with("line 5, column 53: "), "the place comes first: {message}");

    // Modest alias use stays well inside the bound.
    let ok = "g: &g [a, b, c]\nprivacy_policy:\n  groups: {x: *g, y: *g}\n";
    assert_eq!(load(ok).privacy_policy.groups.get("y").map(Vec::len), Some(3));
}

#[test]
fn the_node_bound_counts_plain_values_too() {
    let big = format!("channels: [{}]\n", vec!["log"; MAX_NODES + 1].join(","));
    assert!(matches!(config_from_yaml(&big), Err(ConfigError::TooManyNodes { .. })));
    let fits = format!("channels: [{}]\n", vec!["log"; 1000].join(","));
    assert_eq!(load(&fits).channels.len(), 1000);
}

mod no_panics {
    use super::super::config_from_yaml;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "a",
        ":",
        " ",
        "\n",
        "  ",
        "-",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&x",
        "*x",
        "<<",
        "!!str",
        "!t",
        "'",
        "\"",
        "?",
        "|",
        ">",
        "#",
        "---",
        "...",
        "%YAML 1.1",
        "\t",
        "scoring",
        "weights",
        "vault",
        "levels",
        "1",
        "0x",
        "1.5",
        "~",
        "privacy_policy",
        "flows",
        "group:",
        "data_type",
        "\u{feff}",
        "é",
        "\\",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn arbitrary_text_never_panics(text in ".{0,200}") {
            let _ = config_from_yaml(&text);
        }

        #[test]
        fn yaml_token_soup_never_panics(parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..60)) {
            let _ = config_from_yaml(&parts.concat());
        }
    }
}

#[test]
fn config_bytes_must_be_utf8_text() {
    assert_eq!(config_from_bytes(b"project:\n  name: ok\n").unwrap().project_name, "ok");
    assert_eq!(config_from_bytes(b"\xEF\xBB\xBFproject: {name: bom}\n").unwrap().project_name, "bom");
    let err = config_from_bytes(b"project:\n  name: caf\xe9\n").unwrap_err();
    assert_eq!(
        err,
        ConfigError::Encoding {
            line: 2,
            column: 12,
            message: "the file is not valid UTF-8 text (save it as UTF-8)".into()
        }
    );
    let utf16: Vec<u8> = "\u{feff}project: {}".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let err = config_from_bytes(&utf16).unwrap_err().to_string();
    assert!(err.starts_with("line 1, column 1: the file is UTF-16 text, not UTF-8"), "{err}");
}
