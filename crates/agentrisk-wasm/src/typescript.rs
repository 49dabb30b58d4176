//! The package's `js/index.d.ts`, generated: every data type from its Rust
//! type (ts-rs derives, on in test builds only), put into `js/index.d.ts.in`,
//! which holds what no Rust type describes (the input file shapes, the
//! thrown `Error` and the function signatures). The test fails when the
//! committed file differs; `UPDATE_TYPES=1` rewrites it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use ts_rs::{Config, TypeVisitor, TS};

/// Where the template puts the generated types.
const TYPES_MARK: &str = "// @TYPES@\n";

/// The declarations of some types and of every type they use, each once.
struct Declarations {
    config: Config,
    /// The types asked for, by TypeScript name, in the order asked.
    roots: Vec<String>,
    /// TypeScript name → its declaration as written out (docs included).
    /// Sorted: ts-rs visits a type's fields in no fixed order (its derive
    /// collects them in a HashSet), so visiting order cannot be the file's.
    found: BTreeMap<String, String>,
    /// Names two Rust types declare differently.
    clashes: Vec<String>,
}

impl Declarations {
    fn root<T: TS + 'static>(&mut self) {
        self.roots.push(T::ident(&self.config));
        self.visit::<T>();
    }

    /// The roots in their order, then the types they use by name.
    fn text(mut self) -> String {
        let mut texts: Vec<String> = self.roots.iter().filter_map(|name| self.found.remove(name)).collect();
        texts.extend(self.found.into_values());
        texts.join("\n")
    }
}

impl TypeVisitor for Declarations {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Only types with a declaration of their own have an output path;
        // a Vec or an Option is written inline, its item types visited by the type using it.
        if T::output_path().is_none() {
            return;
        }
        let name = T::ident(&self.config);
        let text = format!("{}export {}\n", T::docs().unwrap_or_default(), laid_out(&T::decl(&self.config)));
        // By name: serde_json's Value and Map both stand for ts-rs's one `JsonValue`.
        match self.found.get(&name) {
            Some(found) if *found == text => return,
            Some(_) => return self.clashes.push(name),
            None => {}
        }
        self.found.insert(name, text);
        T::visit_dependencies(self);
    }
}

/// `type X = { a: A, /** doc */ b: B, };` as ts-rs writes it, one field
/// to a line (a reviewer then sees which field changed); any other
/// declaration as it is.
fn laid_out(declaration: &str) -> String {
    let Some(body) = declaration.split_once(" = { ").and_then(|(_, rest)| rest.strip_suffix(" };")) else {
        return declaration.to_owned();
    };
    let head = &declaration[..declaration.len() - body.len() - " };".len()];
    let mut out = format!("{}\n", head.trim_end());
    for field in top_level_fields(body) {
        let (docs, field) = match field.split_once("*/") {
            Some((docs, field))
                if field.trim_start().starts_with(|c: char| c.is_alphanumeric() || c == '"')
                    && docs.trim_start().starts_with("/**") =>
            {
                (Some(docs), field)
            }
            _ => (None, field),
        };
        if let Some(docs) = docs {
            out.push_str("  /**\n");
            for line in docs.trim_start().trim_start_matches("/**").lines().map(str::trim).filter(|l| !l.is_empty()) {
                out.push_str(&format!("   {line}\n"));
            }
            out.push_str("   */\n");
        }
        out.push_str(&format!("  {};\n", field.trim()));
    }
    out.push_str("};");
    out
}

/// The fields of an object type's body: split at its own commas, not at
/// those inside nested types, string literals or doc comments.
fn top_level_fields(body: &str) -> Vec<&str> {
    let (mut fields, mut depth, mut start) = (Vec::new(), 0i32, 0);
    let (mut in_string, mut in_comment) = (false, false);
    let bytes = body.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if in_comment => in_comment = !(b == b'/' && i > 0 && bytes[i - 1] == b'*'),
            b'"' => in_string = !in_string,
            _ if in_string => {}
            b'/' if bytes.get(i + 1) == Some(&b'*') => in_comment = true,
            b'{' | b'[' | b'(' | b'<' => depth += 1,
            b'}' | b']' | b')' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                fields.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    fields.push(&body[start..]);
    fields.into_iter().filter(|f| !f.trim().is_empty()).collect()
}

/// `js/index.d.ts` as the Rust types and the template give it.
fn index_d_ts(template: &str) -> String {
    // Every integer the package returns is a JavaScript number: the values
    // cross as `JSON.parse` would give them (`to_js` in lib.rs).
    let mut types = Declarations {
        config: Config::new().with_large_int("number"),
        roots: Vec::new(),
        found: BTreeMap::new(),
        clashes: Vec::new(),
    };
    // The options and result of each export, in the order index.js exports them.
    types.root::<super::AnalyzeOptions>();
    types.root::<agentrisk::model::Report>();
    types.root::<super::RescoreOptions>();
    types.root::<super::RescoreResult<'static>>();
    types.root::<super::BatchOptionsIn>();
    types.root::<agentrisk::batch::BatchSummary>();
    types.root::<super::DiffOptionsIn>();
    types.root::<agentrisk::compare::Diff>();
    types.root::<super::HistoryOptionsIn>();
    types.root::<agentrisk::compare::history::History>();
    types.root::<super::WilsonOptions>();
    types.root::<agentrisk::stats::Rate>();
    types.root::<agentrisk::review::Review>();
    types.root::<agentrisk::review::RunReview>();
    types.root::<agentrisk::analyser::ApiError>();
    assert!(types.clashes.is_empty(), "two Rust types declare each of {:?}", types.clashes);
    template.replacen(TYPES_MARK, &types.text(), 1)
}

fn js_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("js")
}

#[test]
fn index_d_ts_is_the_one_the_rust_types_give() {
    let template = std::fs::read_to_string(js_dir().join("index.d.ts.in")).unwrap();
    assert_eq!(template.matches(TYPES_MARK).count(), 1, "index.d.ts.in must hold one {TYPES_MARK:?} line");
    let generated = index_d_ts(&template);
    let path = js_dir().join("index.d.ts");
    if std::env::var_os("UPDATE_TYPES").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let (ours, theirs): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), generated.lines().collect());
        let line = (0..ours.len().max(theirs.len())).find(|&i| ours.get(i) != theirs.get(i)).unwrap_or(ours.len());
        let at = |lines: &[&str]| lines.get(line).map_or("(end of file)".to_owned(), |l| format!("{l:?}"));
        panic!(
            "crates/agentrisk-wasm/js/index.d.ts is not what the Rust types give (first difference at line {}):\n  \
             committed: {}\n  generated: {}\n\
             Update it with: UPDATE_TYPES=1 cargo test -p agentrisk-wasm --lib typescript",
            line + 1,
            at(&ours),
            at(&theirs)
        );
    }
}
