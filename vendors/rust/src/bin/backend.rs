//! A policy backend built on the official AHP Rust SDK (crates.io agenthooksprotocol).
//!
//! The policy is the SDK's typical one: deny a dangerous tool, rewrite the input of another,
//! observe lifecycle events. Framing, validation, correlation and replies are the SDK's:
//! `adapters::stdio::serve` for stdio (until end of input, so persistent and per_event alike)
//! and `adapters::axum::handle` behind an axum route for HTTP.
//!
//!   backend stdio
//!   backend http --port N      (serves POST /hooks on 127.0.0.1:N)
use agenthooksprotocol::generated as g;
use agenthooksprotocol::server::{Authenticator, HandlerSet, Principal, Server};
use serde_json::json;
use std::sync::Arc;

const MAX_BYTES: usize = 4 * 1024 * 1024;

/// No transport credentials in this deployment: every caller is the same anonymous principal.
struct Anonymous;
impl Authenticator for Anonymous {
    fn authenticate(&self, _authorization: Option<&str>) -> Result<Principal, String> {
        Ok(Principal { subject: "anonymous".into() })
    }
}

fn effect(value: serde_json::Value) -> g::ToolBeforeEffect {
    serde_json::from_value(value).expect("a canonical effect")
}

fn handlers() -> HandlerSet {
    let mut handlers = HandlerSet::default();
    handlers.intercept.tool_before = Some(Arc::new(|ctx, _event| {
        Box::pin(async move {
            let name = ctx.request()["params"]["event"]["tool"]["name"].as_str().unwrap_or("").to_owned();
            let reply = ctx.reply();
            Ok(match name.as_str() {
                "rm_rf" => reply.effect(effect(json!({"type": "deny", "reason": format!("{name} is never allowed")}))),
                "write_file" => reply.effect(effect(
                    json!({"type": "modify", "target": "input", "operation": "merge", "value": {"mode": "0644"}}),
                )),
                _ => reply,
            })
        })
    }));
    // Observation is one-way: note it on stderr, never on stdout (the stdio frame stream).
    handlers.observe.any = Some(Arc::new(|ctx, _event| {
        Box::pin(async move {
            eprintln!("observed {:?}", ctx.event_type());
            Ok(())
        })
    }));
    handlers
}

fn server() -> Server<Anonymous> {
    Server { handlers: handlers(), authenticator: Anonymous, max_body_bytes: MAX_BYTES }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("stdio") => {
            let server = server();
            let stdin = std::io::stdin();
            let result = futures::executor::block_on(agenthooksprotocol::adapters::stdio::serve(
                &server,
                stdin.lock(),
                std::io::stdout(),
                None,
                MAX_BYTES,
            ));
            if let Err(error) = result {
                eprintln!("stdio: {error}");
                std::process::exit(1);
            }
        }
        Some("http") => {
            let port = args
                .iter()
                .position(|a| a == "--port")
                .and_then(|i| args.get(i + 1))
                .and_then(|p| p.parse::<u16>().ok())
                .expect("http needs --port <port>");
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                let server = Arc::new(server());
                let app = axum::Router::new().route(
                    "/hooks",
                    axum::routing::any(move |request: axum::extract::Request| {
                        let server = server.clone();
                        async move { agenthooksprotocol::adapters::axum::handle(server.as_ref(), request).await }
                    }),
                );
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        }
        _ => {
            eprintln!("usage: backend stdio | backend http --port <port>");
            std::process::exit(2);
        }
    }
}
