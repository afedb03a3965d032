//! The harness adapter (docs/harness-adapter.md, contract 1) over the official AHP Rust SDK.
//!
//! The crate's public harness is `hooks::Hooks` (features `reqwest` for HTTP hooks and
//! `tokio-process` for stdio hooks). This adapter adds no protocol logic: it hands the
//! contract's registration to `Hooks::new` (the SDK validates it), runs each scenario step
//! through the SDK's named boundaries, and plays the *host*: the sentinel tool, the host's own
//! policy (`host`), and the report. What crosses the wire, and how answers, failures and
//! deadlines settle, is the SDK's.
//!
//!   harness_adapter --config <path>      (the path is also in AHP_ADAPTER_CONFIG)
use agenthooksprotocol::{
    capability::{self, Modify},
    client::Permission,
    hooks::{Harness, Hooks, HooksOptions},
    inputs,
};
use serde_json::{json, Value};
use std::sync::Mutex;

const HARNESS: (&str, &str) = ("agenthooksprotocol-rust", "0.10.1");
const SOURCE: &str = "urn:ahp-conformance:vendor:rust-sdk-harness";

fn options() -> HooksOptions {
    // What this host enforces: deny and input edits on tool.before, and observation of the
    // events the scenarios use.
    let mut options = HooksOptions::new(
        SOURCE,
        Harness::new(HARNESS.0, HARNESS.1),
        capability::HostCapabilities {
            tool_before: Some(capability::tool_before().allow().deny().modify_input(Modify::ReplaceAndMerge).observe()),
            tool_after: Some(capability::tool_after().observe()),
            session_start: Some(capability::session_start().observe()),
            session_end: Some(capability::session_end().observe()),
            ..Default::default()
        },
    );
    // The runner's HTTP hooks are on loopback; the SDK refuses plain http there unless told.
    options.backend.allow_loopback_http = true;
    options
}

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a generated input from its wire shape")
}

struct Host<'a> {
    hooks: &'a Hooks,
    sentinel: String,
    session: Value,
    outcomes: Mutex<Vec<Value>>,
}

impl Host<'_> {
    fn step<'s>(&'s self, step: &'s Value) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + 's>> {
        Box::pin(async move {
            match step["kind"].as_str().unwrap_or("") {
                "session.start" => {
                    let start: inputs::SessionStartInput = input(json!({"session": self.session, "trigger": "startup", "permissionMode": "default", "items": []}));
                    if let Err(e) = self.hooks.session_start(start).await {
                        eprintln!("session.start: {e}");
                    }
                }
                "session.end" => {
                    let outcome = step["outcome"].as_str().unwrap_or("completed");
                    let end: inputs::SessionEndInput = input(json!({"session": self.session, "outcome": outcome, "reason": outcome}));
                    if let Err(e) = self.hooks.session_end(end).await {
                        eprintln!("session.end: {e}");
                    }
                }
                "parallel" => {
                    let steps = step["steps"].as_array().cloned().unwrap_or_default();
                    futures::future::join_all(steps.iter().map(|s| self.step(s))).await;
                }
                "tool" => self.tool(step).await,
                other => eprintln!("unknown step kind {other:?}"),
            }
        })
    }

    async fn tool(&self, step: &Value) {
        let id = step["id"].as_str().unwrap_or("").to_owned();
        let name = step["tool"]["name"].as_str().unwrap_or("").to_owned();
        let given = step["tool"]["input"].clone();
        let call_id = format!("call-{id}");
        let facts = json!({"callId": call_id, "name": name, "path": name, "origin": "native"});
        let mut before = facts.clone();
        before["input"] = given.clone();
        let before: inputs::ToolBeforeInput<Value> = input(before);
        let mut entry = json!({"id": id});
        let mut executed_input = given.clone();
        match self.hooks.tool_before(before).await {
            Err(e) => {
                // The SDK gave no settlement: the host does not run the call.
                eprintln!("tool.before {id}: {e}");
                entry["outcome"] = json!("denied-by-failure-policy");
            }
            Ok(result) => {
                if result.outcome.is_denied() {
                    if result.diagnostics.iter().any(|d| d.synthetic_denial) {
                        entry["outcome"] = json!("denied-by-failure-policy");
                    } else {
                        entry["outcome"] = json!("denied-by-backend");
                        if let Some(reason) = deny_reason(&result.outcome.responses) {
                            entry["reason"] = json!(reason);
                        }
                    }
                } else if step["host"].as_str().unwrap_or("allow") != "allow"
                    || name != self.sentinel
                    || result.outcome.permission() == Permission::Ask
                    || result.outcome.stopped
                    || result.outcome.settled_candidate.is_some()
                {
                    // Host policy runs after the interceptors; AHP never widens it (no decision
                    // leaves the host's own, an `ask` is refused like the simulated user does,
                    // a stopped flow or a supplied result does not run the tool).
                    entry["outcome"] = json!("denied-by-host");
                } else {
                    executed_input = result.input.clone();
                    entry["outcome"] = json!("executed");
                    let marker = step["marker"].as_str().unwrap_or("");
                    std::fs::write(marker, json!({"executedInput": executed_input}).to_string()).expect("marker written");
                }
            }
        }
        let ran = entry["outcome"] == "executed";
        self.outcomes.lock().unwrap().push(entry);
        let mut after = facts;
        after["input"] = executed_input;
        after["outcome"] = json!(if ran { "ok" } else { "denied" });
        after["execution"] = if ran { json!({"status": "executed"}) } else { json!({"status": "skipped", "reason": "policy"}) };
        after["items"] = json!([]);
        let after: inputs::ToolAfterInput<Value> = input(after);
        if let Err(e) = self.hooks.tool_after(after).await {
            eprintln!("tool.after {id}: {e}");
        }
    }
}

fn deny_reason<T: serde::Serialize>(responses: &[T]) -> Option<String> {
    responses.iter().find_map(|r| {
        let value = serde_json::to_value(r).ok()?;
        let effects = value.pointer("/result/effects").or_else(|| value.get("effects"))?.as_array()?.clone();
        effects.iter().find(|e| e["type"] == "deny").and_then(|e| e["reason"].as_str().map(str::to_owned))
    })
}

fn write_report(path: &str, report: Value) {
    let mut full = json!({"adapterContract": 1, "harness": {"name": HARNESS.0, "version": HARNESS.1}});
    full.as_object_mut().unwrap().extend(report.as_object().unwrap().clone());
    std::fs::write(path, full.to_string()).expect("report written");
}

async fn run(config: Value) -> i32 {
    let report = config["report"].as_str().unwrap_or("").to_owned();
    let hooks = match Hooks::new(config["registration"].clone(), options()) {
        Ok(hooks) => hooks,
        Err(e) => {
            write_report(&report, json!({"registration": "rejected", "rejectionReason": e.to_string()}));
            return 1;
        }
    };
    let scenario = &config["scenario"];
    let mut session = json!({"id": scenario["session"]["id"].as_str().unwrap_or("s-1")});
    if let Some(cwd) = scenario["session"]["cwd"].as_str() {
        session["cwd"] = json!(cwd);
    }
    let host = Host {
        hooks: &hooks,
        sentinel: config["sentinel"]["tool"].as_str().unwrap_or("").to_owned(),
        session,
        outcomes: Mutex::new(Vec::new()),
    };
    for step in scenario["steps"].as_array().cloned().unwrap_or_default() {
        host.step(&step).await;
    }
    // The SDK's documented end of a harness: report idle observation work, then shut down.
    hooks.wait_until_idle().await;
    let _ = hooks.shutdown().await;
    let steps = host.outcomes.into_inner().unwrap();
    write_report(&report, json!({"registration": "accepted", "steps": steps}));
    0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .iter()
        .position(|a| a == "--config")
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| std::env::var("AHP_ADAPTER_CONFIG").ok())
        .expect("--config <path> or AHP_ADAPTER_CONFIG");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("config readable")).expect("config JSON");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    std::process::exit(runtime.block_on(run(config)));
}
