//! The crate's boundaries, read from `src/` (as the lints are kept, for whoever changes the
//! code next): no import circle between files, the private core (`src/fast/`) imports no stage,
//! and `unsafe` code lives in the core only.
//!
//! A file is a module (`src/a/b.rs` or `src/a/b/mod.rs` is `crate::a::b`). File A imports file
//! B when A names a path that resolves into B: its `use` declarations and the `crate::` and
//! `super::` paths in its code, following `pub use` re-exports to the file that defines the
//! name. Comments, strings and test code (files named `tests.rs` or `*_tests.rs`, and
//! `#[cfg(test)] mod` blocks) are left out. A module using its own submodules is its inside,
//! not an import; the crate root is left out (it declares and re-exports everything).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What the core may import besides itself: the vocabulary every stage shares.
const CORE_MAY_IMPORT: [&str; 4] = ["body", "flags", "config", "layers"];
const CORE: &str = "fast";

type Module = Vec<String>;

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(path: &Path, src: &Path) -> Module {
    let rel = path
        .strip_prefix(src)
        .expect("under src/")
        .with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `code` without comments and with every string and character literal emptied.
fn strip_comments_and_strings(code: &str) -> String {
    let s: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < s.len() {
        let at = |k: usize| s.get(k).copied().unwrap_or('\0');
        match (s[i], at(i + 1)) {
            ('/', '/') => {
                while i < s.len() && s[i] != '\n' {
                    i += 1;
                }
            }
            ('/', '*') => {
                let mut depth = 0;
                while i < s.len() {
                    if s[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if s[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            ('r', '"' | '#') if i == 0 || !is_word(s[i - 1]) => {
                // A raw string: r"..." or r#"..."#.
                let mut j = i + 1;
                let mut hashes = 0;
                while at(j) == '#' {
                    hashes += 1;
                    j += 1;
                }
                if at(j) != '"' {
                    out.push(s[i]);
                    i += 1;
                    continue;
                }
                j += 1;
                loop {
                    if j >= s.len() {
                        break;
                    }
                    if s[j] == '"' && (1..=hashes).all(|h| at(j + h) == '#') {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
            }
            ('"', _) => {
                i += 1;
                while i < s.len() && s[i] != '"' {
                    i += if s[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            ('\'', '\\') if at(i + 3) == '\'' || at(i + 2) == 'u' => {
                // An escaped character literal.
                i += 2;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            }
            ('\'', c) if c != '\\' && at(i + 2) == '\'' => {
                i += 3;
                out.push_str("' '");
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `code` without its `#[cfg(test)] mod name { ... }` blocks.
fn strip_test_modules(mut code: String) -> String {
    while let Some(start) = code.find("#[cfg(test)]") {
        let after = &code[start + "#[cfg(test)]".len()..];
        let head = after.trim_start();
        let head = head.strip_prefix("pub(crate)").unwrap_or(head).trim_start();
        let Some(rest) = head.strip_prefix("mod ") else {
            // Not a module: leave the attribute out and go on.
            code.replace_range(start..start + "#[cfg(test)]".len(), "");
            continue;
        };
        let name_end = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
        let tail = rest[name_end..].trim_start();
        let block_start = code.len() - tail.len();
        if !tail.starts_with('{') {
            // `mod tests;`: a file of its own, left out by its name.
            code.replace_range(start..block_start, "");
            continue;
        }
        let mut depth = 0;
        let mut end = code.len();
        for (k, c) in code[block_start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = block_start + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        code.replace_range(start..end, "");
    }
    code
}

/// Expands a use tree `a::{b, c::{d, e}}` into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        return vec![path.trim().to_string()];
    };
    let prefix = &tree[..open];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, open + 1);
    for (j, c) in tree.char_indices().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    items.push(&tree[start..j]);
                    break;
                }
            }
            ',' if depth == 1 => {
                items.push(&tree[start..j]);
                start = j + 1;
            }
            _ => {}
        }
    }
    let items = items.into_iter().filter(|it| !it.trim().is_empty());
    items
        .flat_map(|it| expand(it).into_iter().map(|p| format!("{prefix}{p}")))
        .collect()
}

/// Each `use` tree and each `crate::`/`super::` path in `code`.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let boundary = |k: usize| k == 0 || !is_word(code[..k].chars().next_back().unwrap_or(' '));
    for (k, _) in code.match_indices("use ") {
        if boundary(k) {
            let end = code[k..].find(';').map_or(code.len(), |e| k + e);
            paths.extend(expand(&code[k + 4..end]));
        }
    }
    for word in ["crate::", "super::"] {
        for (k, _) in code.match_indices(word) {
            if !boundary(k) {
                continue;
            }
            let len = code[k..]
                .find(|c: char| !(is_word(c) || c == ':'))
                .unwrap_or(code.len() - k);
            paths.push(code[k..k + len].trim_end_matches(':').to_string());
        }
    }
    paths
}

struct Crate {
    files: BTreeMap<Module, (PathBuf, String)>,
    /// Each module's item names, and its `pub use` re-exports by name.
    defines: BTreeMap<Module, BTreeSet<String>>,
    reexports: BTreeMap<Module, BTreeMap<String, String>>,
}

impl Crate {
    fn read() -> Self {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut paths = Vec::new();
        rust_files(&src, &mut paths);
        let mut files = BTreeMap::new();
        let (mut defines, mut reexports) = (BTreeMap::new(), BTreeMap::new());
        for path in paths {
            let name = path.file_stem().unwrap_or_default().to_string_lossy();
            if name == "tests" || name.ends_with("_tests") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code = strip_test_modules(strip_comments_and_strings(&text));
            let module = module_of(&path, &src);
            let mut names = BTreeSet::new();
            let words: Vec<&str> = code.split(|c: char| !is_word(c) && c != '!').collect();
            for pair in words.windows(2) {
                let kinds = [
                    "struct", "enum", "fn", "trait", "type", "const", "static", "union",
                ];
                if kinds.contains(&pair[0]) || pair[0] == "macro_rules!" {
                    names.insert(pair[1].to_string());
                }
            }
            let mut pub_uses = BTreeMap::new();
            for (k, _) in code.match_indices("pub") {
                let rest = code[k + 3..].trim_start();
                let rest = match rest.strip_prefix('(') {
                    Some(r) => r[r.find(')').map_or(0, |e| e + 1)..].trim_start(),
                    None => rest,
                };
                if let Some(tree) = rest.strip_prefix("use ") {
                    let end = tree.find(';').unwrap_or(tree.len());
                    for p in expand(&tree[..end]) {
                        let last = p.rsplit("::").next().unwrap_or("").trim().to_string();
                        pub_uses.insert(last, p);
                    }
                }
            }
            defines.insert(module.clone(), names);
            reexports.insert(module.clone(), pub_uses);
            files.insert(module, (path, code));
        }
        Crate {
            files,
            defines,
            reexports,
        }
    }

    /// The module `path`, named in module `at`, resolves into (the longest prefix that is one).
    fn resolve(&self, at: &[String], path: &str) -> Option<Module> {
        let segs: Vec<&str> = path
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let (mut base, segs): (Module, &[&str]) = match segs.first().copied() {
            Some("crate") => (Vec::new(), &segs[1..]),
            Some("self") => (at.to_vec(), &segs[1..]),
            Some("super") => {
                let mut base = at.to_vec();
                let mut rest = &segs[..];
                while rest.first() == Some(&"super") {
                    base.pop();
                    rest = &rest[1..];
                }
                (base, rest)
            }
            Some(first) => {
                let mut child = at.to_vec();
                child.push(first.to_string());
                if !self.files.contains_key(&child) {
                    return None;
                }
                (at.to_vec(), &segs[..])
            }
            None => return None,
        };
        let mut best = self.files.contains_key(&base).then(|| base.clone());
        for s in segs {
            base.push(s.to_string());
            if self.files.contains_key(&base) {
                best = Some(base.clone());
            } else {
                break;
            }
        }
        best
    }

    /// The module that defines what `path` (named in `at`) names, following re-exports.
    fn owner(&self, at: &[String], path: &str, depth: usize) -> Option<Module> {
        let target = self.resolve(at, path)?;
        let name = path.rsplit("::").next().unwrap_or("").trim();
        if depth > 8 || self.defines[&target].contains(name) {
            return Some(target);
        }
        match self.reexports[&target].get(name) {
            Some(original) => self.owner(&target, original, depth + 1).or(Some(target)),
            None => Some(target),
        }
    }

    /// Each file's imports: the modules it names, with the first name that leads there.
    fn imports(&self) -> BTreeMap<Module, BTreeMap<Module, String>> {
        let mut imports = BTreeMap::new();
        for (module, (_, code)) in &self.files {
            let mut to = BTreeMap::new();
            if !module.is_empty() {
                for path in paths_in(code) {
                    let Some(target) = self.owner(module, &path, 0) else {
                        continue;
                    };
                    if !target.starts_with(module) {
                        to.entry(target).or_insert(path);
                    }
                }
            }
            imports.insert(module.clone(), to);
        }
        imports
    }
}

fn file(m: &[String]) -> String {
    if m.is_empty() {
        "src/lib.rs".into()
    } else {
        format!("src/{}", m.join("/"))
    }
}

/// An import circle, if there is one: its files in order.
fn find_circle(imports: &BTreeMap<Module, BTreeMap<Module, String>>) -> Option<Vec<Module>> {
    // 0: not seen, 1: on the path being followed, 2: done.
    let mut state: BTreeMap<&Module, u8> = BTreeMap::new();
    let mut path: Vec<&Module> = Vec::new();
    fn visit<'a>(
        m: &'a Module,
        imports: &'a BTreeMap<Module, BTreeMap<Module, String>>,
        state: &mut BTreeMap<&'a Module, u8>,
        path: &mut Vec<&'a Module>,
    ) -> Option<Vec<Module>> {
        state.insert(m, 1);
        path.push(m);
        for next in imports.get(m).into_iter().flat_map(|t| t.keys()) {
            match state.get(next).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|p| *p == next).unwrap_or(0);
                    return Some(path[from..].iter().map(|p| (*p).clone()).collect());
                }
                0 => {
                    if let Some(circle) = visit(next, imports, state, path) {
                        return Some(circle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(m, 2);
        None
    }
    for m in imports.keys() {
        if state.get(m).copied().unwrap_or(0) == 0
            && let Some(circle) = visit(m, imports, &mut state, &mut path)
        {
            return Some(circle);
        }
    }
    None
}

#[test]
fn no_file_of_src_imports_itself_through_others() {
    let krate = Crate::read();
    let imports = krate.imports();
    // The reading finds the crate's imports at all (a parser that finds none passes nothing).
    let arrows: usize = imports.values().map(BTreeMap::len).sum();
    assert!(arrows > 100, "only {arrows} imports found in src/");
    if let Some(circle) = find_circle(&imports) {
        let steps: Vec<String> = circle
            .iter()
            .zip(circle.iter().cycle().skip(1))
            .map(|(a, b)| format!("{} -> {} ({})", file(a), file(b), imports[a][b]))
            .collect();
        panic!("an import circle:\n  {}", steps.join("\n  "));
    }
}

#[test]
fn the_core_imports_no_stage() {
    let krate = Crate::read();
    let imports = krate.imports();
    let core: Vec<_> = imports
        .keys()
        .filter(|m| m.first().is_some_and(|f| f == CORE))
        .collect();
    assert!(core.len() >= 3, "the core's files: {core:?}");
    let mut stages = Vec::new();
    for m in core {
        for (target, path) in &imports[m] {
            let allowed = target
                .first()
                .is_some_and(|f| f == CORE || CORE_MAY_IMPORT.contains(&f.as_str()));
            if !allowed {
                stages.push(format!("{} -> {} ({path})", file(m), file(target)));
            }
        }
    }
    assert!(
        stages.is_empty(),
        "the core imports stages:\n  {}",
        stages.join("\n  ")
    );
}

#[test]
fn unsafe_code_lives_in_the_core_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let (mut in_core, mut outside) = (0, Vec::new());
    for path in paths {
        let code = strip_comments_and_strings(&std::fs::read_to_string(&path).expect("a file"));
        let count = code
            .match_indices("unsafe")
            .filter(|&(k, _)| {
                let before = code[..k].chars().next_back().is_none_or(|c| !is_word(c));
                let after = code[k + 6..].chars().next().is_none_or(|c| !is_word(c));
                before && after
            })
            .count();
        if module_of(&path, &src).first().is_some_and(|f| f == CORE) {
            in_core += count;
        } else if count > 0 {
            outside.push(format!("{} ({count})", path.display()));
        }
    }
    assert!(in_core > 0, "the reading found no `unsafe` in the core");
    assert!(outside.is_empty(), "`unsafe` outside the core: {outside:?}");
}

#[test]
fn the_reading_of_src_finds_circles_and_strips_what_is_not_code() {
    // Comments, strings and test modules are not code.
    let code = "use crate::a::B; // use crate::c::D;\nlet s = \"crate::e::F\";\n#[cfg(test)]\nmod tests { use crate::g::H; }\n";
    let code = strip_test_modules(strip_comments_and_strings(code));
    assert_eq!(paths_in(&code), ["crate::a::B", "crate::a::B"]);
    assert_eq!(
        expand("crate::x::{y::Z, w::{V, U as T}}"),
        ["crate::x::y::Z", "crate::x::w::V", "crate::x::w::U"]
    );
    // A circle of three is found; a chain is not one.
    let m = |s: &str| vec![s.to_string()];
    let arrow = |to: &str| BTreeMap::from([(m(to), String::new())]);
    let mut imports = BTreeMap::from([
        (m("a"), arrow("b")),
        (m("b"), arrow("c")),
        (m("c"), BTreeMap::new()),
    ]);
    assert_eq!(find_circle(&imports), None);
    imports.insert(m("c"), arrow("a"));
    assert_eq!(find_circle(&imports), Some(vec![m("a"), m("b"), m("c")]));
}
