//! The `mcp-gen` command line, through the binary: the catalog contract (must-show 1), the drift
//! check (must-show 2), and diagnostics for bad input (exit 2, file and position, a help line).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mcp_gen(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-gen")).args(args).current_dir(dir).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Must-show 1 on every petstore we have: valid JSON, names within the MCP limits, inputSchemas
/// that are valid 2020-12 rooted at `type: object`, all four annotations, byte-identical reruns.
#[test]
fn catalog_of_any_petstore_meets_the_contract() {
    let specs = [
        vec!["catalog", "--spec", "specs/petstore/openapi.yaml"],
        vec!["catalog", "--spec", "specs/petstore/openapi.yaml", "--overlay", "specs/petstore/overlay.yaml"],
        vec!["catalog", "--spec", "tests/fixtures/petstore-expanded.yaml"],
    ];
    for args in specs {
        let first = mcp_gen(&args, &repo());
        assert!(first.status.success(), "{args:?}: {}", stderr(&first));
        let second = mcp_gen(&args, &repo());
        assert_eq!(first.stdout, second.stdout, "{args:?}: two runs differ");
        let catalog: Value = serde_json::from_slice(&first.stdout).unwrap();
        let tools = catalog["tools"].as_array().unwrap();
        assert!(!tools.is_empty());
        let mut names: Vec<&str> = Vec::new();
        for tool in tools {
            let name = tool["name"].as_str().unwrap();
            assert!(
                (1..=64).contains(&name.len())
                    && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)),
                "{name}"
            );
            let input = &tool["inputSchema"];
            assert_eq!(input["type"], "object", "{name}");
            if let Err(e) = jsonschema::draft202012::meta::validate(input) {
                panic!("{name}: inputSchema is not valid 2020-12: {e}");
            }
            jsonschema::validator_for(input).unwrap_or_else(|e| panic!("{name}: inputSchema does not compile: {e}"));
            if let Some(output) = tool.get("outputSchema") {
                assert!(jsonschema::draft202012::meta::is_valid(output), "{name}: outputSchema");
            }
            for hint in ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] {
                assert!(tool["annotations"][hint].is_boolean(), "{name}: {hint} is not explicit");
            }
            assert!(!tool["description"].as_str().unwrap().is_empty());
            names.push(name);
        }
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted, "tools are sorted by name and unique");
    }
}

#[test]
fn petstore_expanded_gets_verb_noun_names() {
    let out = mcp_gen(&["catalog", "--spec", "tests/fixtures/petstore-expanded.yaml"], &repo());
    let catalog: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = catalog["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add_pet", "delete_pet", "find_pet_by_id", "find_pets"]);
    let delete = &catalog["tools"][1];
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    assert_eq!(delete["annotations"]["readOnlyHint"], false);
    let find = &catalog["tools"][3];
    assert_eq!(find["annotations"]["readOnlyHint"], true);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Must-show 2: `check` passes on the repository and fails with a diff once a spec changes.
#[test]
fn check_passes_on_main_and_fails_with_a_diff_after_an_edit() {
    let here = mcp_gen(&["check"], &repo());
    assert!(here.status.success(), "mcp-gen check on the repository: {}", stderr(&here));

    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("specs"), &tmp.path().join("specs"));
    copy_dir(&repo().join("generated"), &tmp.path().join("generated"));
    let root = tmp.path().to_str().unwrap();
    // The copy's crates point at `<copy>/runtime`, exactly like the repository's.
    let clean = mcp_gen(&["check", "--root", root], tmp.path());
    assert!(clean.status.success(), "{}", stderr(&clean));

    let spec = tmp.path().join("specs/petstore/openapi.yaml");
    let text =
        std::fs::read_to_string(&spec).unwrap().replace("summary: Deletes a pet", "summary: Removes a pet for good");
    std::fs::write(&spec, text).unwrap();
    let stale = mcp_gen(&["check", "--root", root], tmp.path());
    assert_eq!(stale.status.code(), Some(1), "{}", stderr(&stale));
    let err = stderr(&stale);
    assert!(err.contains("generated/petstore is stale"), "{err}");
    // Explained as the contract diff, the stale files named…
    assert!(err.contains("semantic  delete_pet /description \"Deletes a pet."), "{err}");
    assert!(err.contains("  stale: tools.json"), "{err}");
    assert!(err.contains("generated/bookshelf is up to date"), "{err}");
    // …and each file's own diff on request.
    let files = mcp_gen(&["check", "--root", root, "--files"], tmp.path());
    let err = stderr(&files);
    assert!(err.contains("+      \"title\": \"Removes a pet for good\","), "{err}");
    assert!(err.contains("-      \"title\": \"Deletes a pet\","), "{err}");

    // Blessing brings it back in line; a stray file is then the only drift.
    let bless = mcp_gen(&["bless", "--root", root], tmp.path());
    assert!(bless.status.success(), "{}", stderr(&bless));
    std::fs::write(tmp.path().join("generated/petstore/src/tools/stray.rs"), "// hand-written\n").unwrap();
    let stray = mcp_gen(&["check", "--root", root], tmp.path());
    assert_eq!(stray.status.code(), Some(1));
    assert!(stderr(&stray).contains("extra: src/tools/stray.rs"), "{}", stderr(&stray));
}

#[test]
fn build_writes_only_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("crate");
    let args = ["build", "--spec", "specs/bookshelf/openapi.json", "--out", out.to_str().unwrap()];
    let first = mcp_gen(&args, &repo());
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stderr(&first).contains("0 unchanged"), "{}", stderr(&first));
    let second = mcp_gen(&args, &repo());
    assert!(stderr(&second).contains("(0 written"), "{}", stderr(&second));
    assert!(out.join("src/tools/list_books.rs").is_file());
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("mcp-gen-runtime = { path = \""), "{manifest}");
}

/// `build --keep-version v1` pins the earlier inputs into the crate; later builds keep serving
/// them without the flag, and a kept version never changes under its clients.
#[test]
fn a_kept_version_is_pinned_once_and_built_every_time() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("crate");
    let out_s = out.to_str().unwrap();
    let (v1, v1_overlay) = ("generated/shop/versions/v1/openapi.yaml", "generated/shop/versions/v1/overlay.yaml");
    let current =
        ["build", "--spec", "specs/shop/openapi.yaml", "--overlay", "specs/shop/overlay.yaml", "--out", out_s];
    let keep = [&current[..], &["--keep-version", "v1", "--kept-spec", v1, "--kept-overlay", v1_overlay]].concat();
    let first = mcp_gen(&keep, &repo());
    assert!(first.status.success(), "{}", stderr(&first));
    for file in
        ["versions/v1/openapi.yaml", "versions/v1/overlay.yaml", "versions/v1/tools.json", "src/versions/v1/mod.rs"]
    {
        assert!(out.join(file).is_file(), "{file}");
    }
    // The same crate as the repository's example, which keeps the same v1.
    for file in ["src/server.rs", "versions/v1/tools.json", "src/versions/v1/delete_coupon.rs", "tools.json"] {
        let here = std::fs::read_to_string(out.join(file)).unwrap();
        assert_eq!(here, std::fs::read_to_string(repo().join("generated/shop").join(file)).unwrap(), "{file}");
    }
    let again = mcp_gen(&current, &repo());
    assert!(stderr(&again).contains("(0 written"), "the kept version stays without the flag: {}", stderr(&again));
    let other = [&current[..], &["--keep-version", "v1", "--kept-spec", "specs/bookshelf/openapi.json"]].concat();
    let refused = mcp_gen(&other, &repo());
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("pinned already"), "{}", stderr(&refused));
    let bad = [&current[..], &["--keep-version", "old", "--kept-spec", v1]].concat();
    assert!(stderr(&mcp_gen(&bad, &repo())).contains("v1, v2"));
}

/// Bad input: exit 2, the file with line and column (and a JSON Pointer where one exists), and a
/// help line. Never a panic.
#[test]
fn bad_input_is_located_and_explained() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let good = "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: getA\n      responses: {'200': {description: ok}}\n";
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (
            vec![write("broken.yaml", "openapi: 3.0.3\ninfo: [unclosed\n")],
            vec!["error[parse]", "broken.yaml:3:1", "help:"],
        ),
        (
            vec![write("broken.json", "{\"openapi\": \"3.1.0\",\n  \"info\": }")],
            vec!["error[parse]", "broken.json:2:11"],
        ),
        (
            vec![write(
                "ref.yaml",
                "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Missing'}\n",
            )],
            vec![
                "error[unknown-ref]",
                "ref.yaml:11:24",
                "#/paths/~1a/get/responses/200/content/application~1json/schema/$ref",
                "help:",
            ],
        ),
        (
            vec![write("swagger.json", "{\"swagger\": \"1.2\", \"info\": {}, \"paths\": {}}")],
            vec!["error[unsupported-version]", "swagger.json:1:2"],
        ),
        (
            // Swagger 2.0 is upgraded on load; problems are still reported at the 2.0 lines.
            vec![write(
                "swagger2.yaml",
                "swagger: '2.0'\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    post:\n      parameters:\n        - name: body\n          in: body\n          schema: {$ref: '#/definitions/Missing'}\n      responses: {'200': {description: ok}}\n",
            )],
            vec![
                "error[unknown-ref]",
                "`$ref: #/definitions/Missing`",
                "swagger2.yaml:9:20",
                "#/paths/~1a/post/parameters/0/schema/$ref",
                "define `/definitions/Missing`",
            ],
        ),
        (
            vec![write(
                "invalid.yaml",
                "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      parameters:\n        - name: n\n          in: query\n          schema: {type: integer, minimum: five}\n      responses: {'200': {description: ok}}\n",
            )],
            vec!["error[invalid-schema]", "invalid.yaml:9:35", "#/paths/~1a/get/parameters/0/schema/minimum", "help:"],
        ),
        (
            vec![write(
                "regex.yaml",
                "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      parameters:\n        - name: n\n          in: query\n          schema: {type: string, pattern: '[a-z'}\n      responses: {'200': {description: ok}}\n",
            )],
            vec!["error[invalid-schema]", "ECMA-262", "regex.yaml:9:"],
        ),
        (vec![write("notaspec.yaml", "hello: world\n")], vec!["error[not-a-spec]"]),
        (vec![tmp.path().join("absent.yaml").to_str().unwrap().to_owned()], vec!["error[io]", "absent.yaml"]),
        (
            vec![
                write("good.yaml", good),
                "--overlay".into(),
                write("overlay.yaml", "mcp-gen: 1\ntools:\n  get_a:\n    operation: getA\n    titel: x\n"),
            ],
            vec!["error[overlay]", "unknown field `titel`", "overlay.yaml:5:5", "#/tools/get_a/titel"],
        ),
        (
            vec![
                write("good2.yaml", good),
                "--overlay".into(),
                write("overlay2.yaml", "mcp-gen: 1\ntools:\n  get_b:\n    operation: getB\n"),
            ],
            vec!["error[overlay-unknown-target]", "overlay2.yaml:4:5", "did you mean `getA`?"],
        ),
    ];
    for (spec_args, expected) in cases {
        let mut args = vec!["catalog".to_owned(), "--spec".to_owned()];
        args.extend(spec_args);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = mcp_gen(&refs, tmp.path());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "no catalog on failure");
        for e in expected {
            assert!(err.contains(e), "{args:?}: expected `{e}` in:\n{err}");
        }
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// An API of `n` read operations, `GET /things{i}` each, as a JSON document.
fn wide_api(n: usize) -> String {
    let paths: serde_json::Map<String, Value> = (0..n)
        .map(|i| {
            let op = serde_json::json!({"get": {"operationId": format!("listThings{i}"), "summary": format!("List things of kind {i}."),
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}}}});
            (format!("/things{i}"), op)
        })
        .collect();
    serde_json::json!({"openapi": "3.1.0", "info": {"title": "Wide", "version": "1"}, "paths": paths}).to_string()
}

/// Issue 34 must-show 3: an endpoint over OpenAI's 128 tools fails `lint --client openai` and
/// names the exposure that fixes it; served with that exposure, it passes.
#[test]
fn a_client_profile_fails_an_endpoint_over_its_cap_and_names_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wide.json"), wide_api(130)).unwrap();
    let flat = mcp_gen(&["lint", "--client", "openai", "--spec", "wide.json"], dir.path());
    assert_eq!(flat.status.code(), Some(1), "{}", stderr(&flat));
    let text = stderr(&flat);
    assert!(
        text.contains("error[T6-client-cap]: the main endpoint lists 130 tools; openai accepts at most 128"),
        "{text}"
    );
    assert!(text.contains("server.exposure: discover"), "{text}");
    // Anthropic states no cap: the same endpoint is only crowded.
    let anthropic = mcp_gen(&["lint", "--client", "anthropic", "--spec", "wide.json"], dir.path());
    assert_eq!(anthropic.status.code(), Some(0), "{}", stderr(&anthropic));
    assert!(stderr(&anthropic).contains("warning[T6-client-crowded]"), "{}", stderr(&anthropic));

    std::fs::write(dir.path().join("overlay.yaml"), "mcp-gen: 1\nserver:\n  exposure: discover\n").unwrap();
    let discover =
        mcp_gen(&["lint", "--client", "openai", "--spec", "wide.json", "--overlay", "overlay.yaml"], dir.path());
    assert_eq!(discover.status.code(), Some(0), "{}", stderr(&discover));
    assert!(!stderr(&discover).contains("T6-client"), "{}", stderr(&discover));
    // The plan recommends the mode.
    let plan = mcp_gen(&["plan", "--spec", "wide.json"], dir.path());
    let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
    assert_eq!(plan["exposure"]["served"], "flat");
    assert_eq!(plan["exposure"]["recommended"]["openai"]["exposure"], "discover");
    let bad = mcp_gen(&["lint", "--client", "mystery", "--spec", "wide.json"], dir.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("openai"), "the valid profiles are listed: {}", stderr(&bad));
}

/// `mcp-gen search` ranks as the server's search_tools does, and its JSON names each tool's
/// operations.
#[test]
fn search_ranks_tools_for_a_request_and_names_their_operations() {
    let out = mcp_gen(
        &[
            "search",
            "--spec",
            "specs/invoices/openapi.yaml",
            "--overlay",
            "specs/invoices/overlay.yaml",
            "--json",
            "--top",
            "3",
        ]
        .into_iter()
        .chain(["void the invoice sent by mistake"])
        .collect::<Vec<_>>(),
        &repo(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let ranked: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = ranked["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3, "{ranked}");
    assert_eq!(results[0]["tool"], "void_invoice", "{ranked}");
    // The invoices spec has no operationIds: operations are named by method and path.
    assert_eq!(results[0]["operations"], serde_json::json!(["POST /v1/invoices/{invoice_id}/void"]), "{ranked}");
    let scores: Vec<f64> = results.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");
}
