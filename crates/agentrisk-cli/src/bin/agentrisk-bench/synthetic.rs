//! A synthetic AgentLeak trace of any length, for benchmarks.
//!
//! The trace is a run of 48-event "cases" modelled on the conformance corpus
//! (patient records, loan applications, HR files): one subject per case,
//! whose record is fetched by a tool, copied into memory, forwarded between
//! agents, logged and written to files, across all eight channels and a
//! dozen agents and targets. Two of every three events are the planning,
//! searching and reviewing chatter that carries no personal data, so the
//! trace has about as many findings per event as the conformance corpus
//! (0.4; a corpus trace has 0.38). Every identifier (ids, SSN, SIN, phone, email,
//! account, IBAN, card, API keys, tokens, addresses) is derived from the
//! case number, so the number of distinct secrets grows with the trace.
//! Every fourth case also re-sends one of its values obscured — reversed,
//! ROT13-rotated, base64-encoded or split across two messages — which is
//! what the obscured-copy pass has to find.
//!
//! Output is compact JSON of about 210 bytes per event (≈ 21 MB for
//! 100 000 events, the reference's benchmark size) and depends only on the
//! event count: values come from a seeded integer hash, not from a random
//! number generator.

use agentrisk::detect::luhn;

const GIVEN: [&str; 40] = [
    "Marie",
    "Daniel",
    "Catherine",
    "Michael",
    "Sarah",
    "David",
    "Laura",
    "Paul",
    "Julie",
    "Robert",
    "Anne",
    "Thomas",
    "Nathalie",
    "Kevin",
    "Emily",
    "Pierre",
    "Louise",
    "Jessica",
    "Olivier",
    "Rachel",
    "Vincent",
    "Melissa",
    "Charles",
    "Rebecca",
    "Gregory",
    "Camille",
    "Brandon",
    "Heather",
    "Edward",
    "Lauren",
    "Justin",
    "Judith",
    "Julien",
    "Audrey",
    "Philip",
    "Rodney",
    "Marcus",
    "Sharon",
    "Jeremy",
    "Brenda",
];
const SURNAMES: [&str; 48] = [
    "Tremblay",
    "Gagnon",
    "Roy",
    "Bouchard",
    "Gauthier",
    "Morin",
    "Lavoie",
    "Fortin",
    "Ouellet",
    "Pelletier",
    "Belanger",
    "Levesque",
    "Bergeron",
    "Leblanc",
    "Paquette",
    "Girard",
    "Simard",
    "Boucher",
    "Caron",
    "Beaulieu",
    "Cloutier",
    "Dube",
    "Poirier",
    "Fournier",
    "Lapointe",
    "Leclerc",
    "Lefebvre",
    "Poulin",
    "Thibault",
    "Martel",
    "Smith",
    "Johnson",
    "Brown",
    "Wilson",
    "Clark",
    "Allen",
    "Warren",
    "Dubois",
    "Martin",
    "Nguyen",
    "Patel",
    "Garcia",
    "Walker",
    "Young",
    "Hughes",
    "Foster",
    "Russell",
    "Palmer",
];
const CONDITIONS: [&str; 10] = [
    "diabetes",
    "hypertension",
    "asthma",
    "depression",
    "anxiety",
    "epilepsy",
    "arthritis",
    "migraine",
    "hepatitis",
    "insomnia",
];
const MEDICATIONS: [&str; 6] = ["metformin", "insulin", "warfarin", "lithium", "prednisone", "morphine"];
const STREETS: [&str; 8] = ["Maple", "Oak", "Cedar", "Elm", "Pine", "Birch", "Walnut", "Willow"];
const CITIES: [(&str, &str); 6] = [
    ("Springfield", "IL"),
    ("Portland", "OR"),
    ("Albany", "NY"),
    ("Madison", "WI"),
    ("Austin", "TX"),
    ("Denver", "CO"),
];
const ALNUM: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A 64-bit mix of `x` (splitmix64's finaliser): the generator's only source
/// of variation, so a given event count always yields the same bytes.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Deterministic draws for one case.
struct Draw {
    state: u64,
}

impl Draw {
    fn next(&mut self) -> u64 {
        self.state = mix(self.state);
        self.state
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn digits(&mut self, n: usize) -> String {
        (0..n).map(|_| char::from(b'0' + self.below(10) as u8)).collect()
    }

    fn alnum(&mut self, n: usize) -> String {
        (0..n).map(|_| char::from(ALNUM[self.below(62) as usize])).collect()
    }

    fn upper_digits(&mut self, n: usize) -> String {
        (0..n).map(|_| char::from(ALNUM[[0, 52][self.below(2) as usize] + self.below(10) as usize])).collect()
    }
}

/// The values of one case: a subject and everything leaked about them.
pub(crate) struct Case {
    number: u64,
    given: &'static str,
    surname: &'static str,
    pub(crate) email: String,
    pub(crate) ssn: String,
    pub(crate) sin: String,
    pub(crate) phone: String,
    dob: String,
    pub(crate) account: String,
    pub(crate) iban: String,
    pub(crate) card: String,
    address: String,
    condition: &'static str,
    medication: &'static str,
    ip: String,
    bearer: String,
    pub(crate) api_key: String,
    salary: String,
}

/// A Luhn-valid 16-digit Visa-style number, grouped in fours.
fn card_number(draw: &mut Draw) -> String {
    let body: String = std::iter::once(4)
        .chain((0..14).map(|_| draw.below(10) as u32))
        .filter_map(|d| char::from_digit(d, 10))
        .collect();
    let s = format!("{body}{}", luhn::check_digit(&body));
    format!("{} {} {} {}", &s[0..4], &s[4..8], &s[8..12], &s[12..16])
}

impl Case {
    pub(crate) fn new(number: u64) -> Case {
        let mut draw = Draw { state: mix(number ^ 0xA6E7_1EA4) };
        // Names cycle through every combination before repeating, so
        // distinct names grow with the trace up to 40 × 48.
        let given = GIVEN[(number % GIVEN.len() as u64) as usize];
        let surname = SURNAMES[((number / GIVEN.len() as u64) % SURNAMES.len() as u64) as usize];
        let email = format!("{}.{}{}@example.org", given.to_lowercase(), surname.to_lowercase(), number % 997);
        // Leading digits keep the numbers in the detectors' valid ranges;
        // the case number in the middle keeps them distinct.
        let ssn = format!(
            "{}{:02}-{:02}-{:04}",
            1 + draw.below(8),
            number % 100,
            10 + (number / 100) % 90,
            draw.below(10_000)
        );
        let sin = format!("{}{:02} {:03} {}", 1 + draw.below(8), number % 100, (number / 100) % 1000, draw.digits(3));
        let phone = format!("{}-555-{:04}", [514, 438, 416, 604][draw.below(4) as usize], number % 10_000);
        let dob = format!("19{:02}-{:02}-{:02}", 40 + draw.below(60), 1 + draw.below(12), 1 + draw.below(28));
        let account = format!("{}{:06}", 100 + draw.below(900), number % 1_000_000);
        let iban = format!("FR76 3000 6000 {:04} {} {} 189", number % 10_000, draw.digits(4), draw.digits(4));
        let card = card_number(&mut draw);
        let (city, state) = CITIES[draw.below(CITIES.len() as u64) as usize];
        let address = format!(
            "{} {} Street, {city}, {state} {:05}",
            1 + draw.below(9000),
            draw.pick(&STREETS),
            10_000 + draw.below(89_999)
        );
        let ip = format!("10.{}.{}.{}", draw.below(256), draw.below(256), 1 + draw.below(254));
        let bearer = draw.alnum(28);
        let api_key = match number % 3 {
            0 => format!("sk-proj-{}", draw.alnum(24)),
            1 => format!("AKIA{}", draw.upper_digits(16)),
            _ => format!("ghp_{}", draw.alnum(36)),
        };
        let salary = format!("${},{:03}", 45 + draw.below(120), draw.below(1000));
        Case {
            number,
            given,
            surname,
            email,
            ssn,
            sin,
            phone,
            dob,
            account,
            iban,
            card,
            address,
            condition: CONDITIONS[draw.below(CONDITIONS.len() as u64) as usize],
            medication: MEDICATIONS[draw.below(MEDICATIONS.len() as u64) as usize],
            ip,
            bearer,
            api_key,
            salary,
        }
    }

    fn name(&self) -> String {
        format!("{} {}", self.given, self.surname)
    }
}

pub(crate) fn rot13(t: &str) -> String {
    t.chars()
        .map(|c| match c {
            'a'..='z' => char::from((c as u8 - b'a' + 13) % 26 + b'a'),
            'A'..='Z' => char::from((c as u8 - b'A' + 13) % 26 + b'A'),
            _ => c,
        })
        .collect()
}

pub(crate) fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(TABLE[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// What an event carries: a plain string or a flat JSON object.
enum Content {
    Text(String),
    Fields(Vec<(&'static str, String)>),
}

struct Event {
    channel: &'static str,
    source: &'static str,
    target: &'static str,
    content: Content,
    tool: Option<&'static str>,
}

fn text(channel: &'static str, source: &'static str, target: &'static str, content: String) -> Event {
    Event { channel, source, target, content: Content::Text(content), tool: None }
}

fn fields(
    channel: &'static str,
    source: &'static str,
    target: &'static str,
    tool: &'static str,
    content: Vec<(&'static str, String)>,
) -> Event {
    Event { channel, source, target, content: Content::Fields(content), tool: Some(tool) }
}

/// Events per case: each of the 16 events that carry the case's data is
/// preceded by two that carry none.
const CASE_EVENTS: u64 = 48;

/// Event `slot` (0..48) of case `c`.
fn event(c: &Case, slot: u64) -> Event {
    if slot % 3 == 2 {
        leaky_event(c, slot / 3)
    } else {
        chatter(c, slot)
    }
}

/// An event with no personal data in it: planning, search, rendering and
/// review traffic, varied by case and slot.
fn chatter(c: &Case, slot: u64) -> Event {
    let step = slot / 3 + 1;
    let topic = ["follow-up care", "visit summaries", "billing questions", "scheduling", "care plans"]
        [((c.number + slot) % 5) as usize];
    match (c.number * 7 + slot) % 8 {
        0 => text(
            "inter_agent_message",
            "orchestrator",
            "planner",
            format!("Plan step {step}: check the guidance on {topic}, then draft the summary and wait for review."),
        ),
        1 => fields(
            "tool_call",
            "planner",
            "search_api",
            "search",
            vec![("tool", "search".into()), ("query", format!("guidelines for {topic}")), ("top_k", "5".into())],
        ),
        2 => text(
            "tool_response",
            "search_api",
            "planner",
            format!("Found 5 documents on {topic}: overview, checklist, team policy, note template and the FAQ."),
        ),
        3 => text(
            "log",
            "framework",
            "stdout",
            format!("step={step} agent=planner status=ok latency_ms={} tokens={}", 40 + slot * 3, 200 + slot * 11),
        ),
        4 => text(
            "shared_memory",
            "planner",
            "memory",
            format!(
                "Scratchpad: the summary on {topic} needs context, plan and open questions; keep the tone neutral."
            ),
        ),
        5 => fields(
            "tool_call",
            "writer_agent",
            "docs_api",
            "render",
            vec![("tool", "render".into()), ("template", "summary_v2".into()), ("format", "markdown".into())],
        ),
        6 => text(
            "inter_agent_message",
            "reviewer_agent",
            "writer_agent",
            format!("Looks good overall. Shorten paragraph {step} on {topic} and keep the headings consistent."),
        ),
        _ => text(
            "tool_response",
            "docs_api",
            "writer_agent",
            format!(
                "Rendered summary_v2 as markdown: {} sections, {} words, no warnings.",
                3 + slot % 4,
                180 + slot * 7
            ),
        ),
    }
}

/// Event `slot` (0..16) of the case's data-carrying events.
fn leaky_event(c: &Case, slot: u64) -> Event {
    let name = c.name();
    match slot {
        0 => text(
            "user_input",
            "user",
            "orchestrator",
            format!("Summarize patient {name}'s recent visit and suggest follow-up care for next month"),
        ),
        1 => fields(
            "tool_call",
            "orchestrator",
            "records_db",
            "lookup_record",
            vec![
                ("tool", "lookup_record".into()),
                ("patient_id", format!("PT-{:06}", c.number)),
                ("fields", "all".into()),
            ],
        ),
        2 => fields(
            "tool_response",
            "records_db",
            "orchestrator",
            "lookup_record",
            vec![
                ("name", name),
                ("ssn", c.ssn.clone()),
                ("dob", c.dob.clone()),
                ("diagnosis", c.condition.into()),
                ("phone", c.phone.clone()),
            ],
        ),
        3 => fields(
            "tool_response",
            "crm_api",
            "orchestrator",
            "get_contact",
            vec![
                ("email", c.email.clone()),
                ("address", c.address.clone()),
                ("account_number", c.account.clone()),
                ("tier", "standard".into()),
            ],
        ),
        4 => text(
            "shared_memory",
            "orchestrator",
            "memory",
            format!("Case {}: {name}, SIN {}, takes {} daily for {}.", c.number, c.sin, c.medication, c.condition),
        ),
        5 => text(
            "inter_agent_message",
            "orchestrator",
            "billing_agent",
            format!("Bill account {} for {name}; card {} on file for the monthly invoice.", c.account, c.card),
        ),
        6 => fields(
            "tool_call",
            "billing_agent",
            "payments_api",
            "charge",
            vec![
                ("tool", "charge".into()),
                ("iban", c.iban.clone()),
                ("amount", format!("{}.00", 40 + c.number % 300)),
            ],
        ),
        7 => text(
            "log",
            "framework",
            "stdout",
            format!("INFO processed application for {} from ip {} in {} ms", c.email, c.ip, 20 + c.number % 80),
        ),
        8 => fields(
            "tool_call",
            "orchestrator",
            "llm_api",
            "complete",
            vec![
                ("authorization", format!("Bearer {}", c.bearer)),
                ("model", "gpt-4o".into()),
                ("max_tokens", "512".into()),
            ],
        ),
        9 => text(
            "log",
            "framework",
            "stdout",
            format!("DEBUG env loaded: API_KEY={} region=ca-central-1 pid={}", c.api_key, 1000 + c.number % 9000),
        ),
        10 => text(
            "inter_agent_message",
            "orchestrator",
            "writer_agent",
            "Draft a neutral summary of the follow-up plan for the care team; leave out all identifiers.".into(),
        ),
        11 => text(
            "generated_file",
            "writer_agent",
            "disk",
            format!(
                "Quarterly report for {name}: salary: {}; currently on sick leave; performance review due.",
                c.salary
            ),
        ),
        12 => text(
            "inter_agent_message",
            "writer_agent",
            "hr_agent",
            format!("Employee {name} ({}) flagged for a compliance review this week.", c.email),
        ),
        // Every fourth case re-sends a value obscured; the others stay plain.
        13 => match c.number % 16 {
            3 => text("inter_agent_message", "orchestrator", "worker", format!("reversed: {}", reversed(&c.sin))),
            7 => text("inter_agent_message", "orchestrator", "worker", format!("rot: {}", rot13(&c.email))),
            11 => text("log", "framework", "stdout", format!("payload={}", base64(c.email.as_bytes()))),
            15 => text("tool_call", "orchestrator", "exfil", format!("part one {}", &c.account[..5])),
            _ => text(
                "log",
                "framework",
                "stdout",
                format!("INFO case {} closed by the orchestrator in {} ms", c.number, c.number % 900),
            ),
        },
        14 => match c.number % 16 {
            15 => text("tool_call", "orchestrator", "exfil", format!("part two {}", &c.account[5..])),
            _ => fields(
                "tool_call",
                "orchestrator",
                "calendar_api",
                "schedule",
                vec![
                    ("tool", "schedule".into()),
                    ("when", format!("2026-07-{:02}T10:00", 1 + c.number % 28)),
                    ("duration", "30m".into()),
                ],
            ),
        },
        _ => text(
            "final_output",
            "writer_agent",
            "user",
            format!(
                "Thank you. The request for {} has been processed; our team will follow up within 3 business days.",
                c.given
            ),
        ),
    }
}

pub(crate) fn reversed(s: &str) -> String {
    s.chars().rev().collect()
}

/// Appends `s` as a JSON string literal.
fn push_json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            c => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// The trace of `events` events, as compact JSON bytes.
pub fn trace_json(events: usize) -> Vec<u8> {
    trace_json_from(&format!("bench_{events}"), 0, events)
}

/// A trace of `events` events starting at case `first_case`, as compact
/// JSON bytes: with a different first case, other people and identifiers.
pub fn trace_json_from(run_id: &str, first_case: u64, events: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(events * 215 + 256);
    out.extend_from_slice(b"{\"run_id\":");
    push_json_str(&mut out, run_id);
    out.extend_from_slice(
        b",\"agent_name\":\"care_coordinator\",\"scenario_id\":\"synthetic_bench\",\
          \"task_success\":true,\"timestamp\":\"2026-07-01T09:00:00Z\",\"events\":[",
    );
    let mut case = Case::new(first_case);
    for i in 0..events as u64 {
        let number = first_case + i / CASE_EVENTS;
        if number != case.number {
            case = Case::new(number);
        }
        let e = event(&case, i % CASE_EVENTS);
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(format!("{{\"event_id\":\"evt_{:06}\",\"channel\":", i + 1).as_bytes());
        push_json_str(&mut out, e.channel);
        out.extend_from_slice(b",\"source\":");
        push_json_str(&mut out, e.source);
        out.extend_from_slice(b",\"target\":");
        push_json_str(&mut out, e.target);
        out.extend_from_slice(b",\"content\":");
        match &e.content {
            Content::Text(t) => push_json_str(&mut out, t),
            Content::Fields(fields) => {
                out.push(b'{');
                for (n, (key, value)) in fields.iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    push_json_str(&mut out, key);
                    out.push(b':');
                    push_json_str(&mut out, value);
                }
                out.push(b'}');
            }
        }
        if let Some(tool) = e.tool {
            out.extend_from_slice(b",\"metadata\":{\"tool_name\":");
            push_json_str(&mut out, tool);
            out.push(b'}');
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_deterministic_valid_json_of_the_planned_size() {
        let a = trace_json(1600);
        assert_eq!(a, trace_json(1600));
        let v: serde_json::Value = serde_json::from_slice(&a).unwrap();
        assert_eq!(v["events"].as_array().unwrap().len(), 1600);
        let per_event = a.len() / 1600;
        assert!((190..=230).contains(&per_event), "{per_event} bytes per event");
    }

    #[test]
    fn findings_per_event_are_near_the_corpus_and_secrets_grow_with_the_trace() {
        let analyser = agentrisk::analyser::Analyser::new();
        let analyze = |events: usize| {
            let bytes = trace_json(events);
            analyser.trace_report(agentrisk::analyser::Named { name: "synthetic.json", bytes: &bytes }).unwrap()
        };
        let (small, large) = (analyze(960), analyze(4800));
        let per_event = large.findings.len() as f64 / 4800.0;
        assert!((0.35..=0.5).contains(&per_event), "{per_event} findings per event");
        // Five times the events: about five times the distinct secrets.
        let growth = large.summary.leaked_secrets as f64 / small.summary.leaked_secrets as f64;
        assert!((4.0..=5.5).contains(&growth), "distinct secrets grew {growth}×");
        // Every obscuring the generator plants is found.
        for label in ["reversed", "rot13-rotated", "base64-encoded", "split across messages"] {
            assert!(
                large.findings.iter().any(|f| f.recommendation.to_lowercase().contains(label)),
                "no {label} copy found"
            );
        }
    }

    #[test]
    fn helpers() {
        assert_eq!(base64(b"hello!"), "aGVsbG8h");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(rot13("grace.hopper"), "tenpr.ubccre");
        let mut d = Draw { state: 1 };
        let card = card_number(&mut d);
        assert!(luhn::is_valid(&card), "{card}");
        assert_eq!(card.len(), 19, "{card}");
    }
}
