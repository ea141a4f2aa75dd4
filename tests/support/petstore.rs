//! A small, stateful implementation of the petstore API in `specs/petstore/openapi.yaml`: the
//! real upstream the generated server talks to in the end-to-end tests. It records every request
//! so tests can count side effects and inspect what reached it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

/// The API key the upstream demands on `GET /pet/{petId}` (the spec's `api_key` scheme).
pub const API_KEY: &str = "test-secret-key";

#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub uri: String,
    pub headers: BTreeMap<String, String>,
    pub body: Option<Value>,
}

#[derive(Default)]
pub struct Store {
    pets: BTreeMap<i64, Value>,
    next_id: i64,
    pub requests: Vec<Seen>,
}

pub type Shared = Arc<Mutex<Store>>;

fn not_found(what: &str) -> Response {
    (StatusCode::NOT_FOUND, Json(json!({"code": 404, "type": "error", "message": format!("{what} not found")})))
        .into_response()
}

fn record(store: &Shared, method: &str, uri: &Uri, headers: &HeaderMap, body: Option<&Value>) {
    let headers = headers.iter().map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned())).collect();
    store.lock().unwrap().requests.push(Seen {
        method: method.to_owned(),
        uri: uri.to_string(),
        headers,
        body: body.cloned(),
    });
}

fn valid_new_pet(body: &Value) -> bool {
    body.get("name").and_then(Value::as_str).is_some_and(|n| !n.is_empty())
        && body.get("photoUrls").is_some_and(Value::is_array)
}

async fn add_pet(State(s): State<Shared>, uri: Uri, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    record(&s, "POST", &uri, &headers, Some(&body));
    if !valid_new_pet(&body) {
        return (StatusCode::UNPROCESSABLE_ENTITY, Json(json!({"message": "name and photoUrls are required"})))
            .into_response();
    }
    let mut store = s.lock().unwrap();
    store.next_id += 1;
    let id = store.next_id;
    let mut pet = body;
    pet["id"] = json!(id);
    store.pets.insert(id, pet.clone());
    Json(pet).into_response()
}

async fn update_pet(State(s): State<Shared>, uri: Uri, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    record(&s, "PUT", &uri, &headers, Some(&body));
    let Some(id) = body.get("id").and_then(Value::as_i64) else {
        return (StatusCode::BAD_REQUEST, Json(json!({"message": "Invalid ID supplied"}))).into_response();
    };
    let mut store = s.lock().unwrap();
    if !store.pets.contains_key(&id) {
        return not_found("Pet");
    }
    store.pets.insert(id, body.clone());
    Json(body).into_response()
}

async fn find_by_status(
    State(s): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    Query(q): Query<BTreeMap<String, String>>,
) -> Response {
    record(&s, "GET", &uri, &headers, None);
    let status = q.get("status").map_or("available", String::as_str);
    let store = s.lock().unwrap();
    let pets: Vec<Value> = store.pets.values().filter(|p| p["status"] == json!(status)).cloned().collect();
    Json(pets).into_response()
}

async fn find_by_tags(State(s): State<Shared>, uri: Uri, headers: HeaderMap) -> Response {
    record(&s, "GET", &uri, &headers, None);
    let wanted: Vec<String> = uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter_map(|kv| kv.strip_prefix("tags="))
        .map(|v| percent_encoding::percent_decode_str(v).decode_utf8_lossy().into_owned())
        .collect();
    let store = s.lock().unwrap();
    let pets: Vec<Value> = store
        .pets
        .values()
        .filter(|p| {
            p["tags"].as_array().is_some_and(|tags| tags.iter().any(|t| wanted.iter().any(|w| t["name"] == json!(w))))
        })
        .cloned()
        .collect();
    Json(pets).into_response()
}

async fn get_pet(State(s): State<Shared>, uri: Uri, headers: HeaderMap, Path(id): Path<String>) -> Response {
    record(&s, "GET", &uri, &headers, None);
    if headers.get("api_key").and_then(|v| v.to_str().ok()) != Some(API_KEY) {
        return (StatusCode::UNAUTHORIZED, Json(json!({"message": "missing or wrong api_key"}))).into_response();
    }
    let Ok(id) = id.parse::<i64>() else {
        return (StatusCode::BAD_REQUEST, Json(json!({"message": "Invalid ID supplied"}))).into_response();
    };
    match s.lock().unwrap().pets.get(&id) {
        Some(p) => Json(p.clone()).into_response(),
        None => not_found("Pet"),
    }
}

async fn update_with_form(
    State(s): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    Path(id): Path<i64>,
    Query(q): Query<BTreeMap<String, String>>,
) -> Response {
    record(&s, "POST", &uri, &headers, None);
    let mut store = s.lock().unwrap();
    let Some(pet) = store.pets.get_mut(&id) else { return not_found("Pet") };
    if let Some(name) = q.get("name") {
        pet["name"] = json!(name);
    }
    if let Some(status) = q.get("status") {
        pet["status"] = json!(status);
    }
    Json(pet.clone()).into_response()
}

async fn delete_pet(State(s): State<Shared>, uri: Uri, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    record(&s, "DELETE", &uri, &headers, None);
    match s.lock().unwrap().pets.remove(&id) {
        Some(_) => StatusCode::OK.into_response(),
        None => not_found("Pet"),
    }
}

async fn inventory(State(s): State<Shared>, uri: Uri, headers: HeaderMap) -> Response {
    record(&s, "GET", &uri, &headers, None);
    let store = s.lock().unwrap();
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    for p in store.pets.values() {
        if let Some(status) = p["status"].as_str() {
            *counts.entry(status.to_owned()).or_default() += 1;
        }
    }
    Json(counts).into_response()
}

async fn unavailable(State(s): State<Shared>, uri: Uri, headers: HeaderMap) -> Response {
    record(&s, "POST", &uri, &headers, None);
    (StatusCode::SERVICE_UNAVAILABLE, [("retry-after", "2")], Json(json!({"message": "orders are paused"})))
        .into_response()
}

pub fn router(state: Shared) -> axum::Router {
    axum::Router::new()
        .route("/api/v3/pet", post(add_pet).put(update_pet))
        .route("/api/v3/pet/findByStatus", get(find_by_status))
        .route("/api/v3/pet/findByTags", get(find_by_tags))
        .route("/api/v3/pet/{petId}", get(get_pet).post(update_with_form).delete(delete_pet))
        .route("/api/v3/store/inventory", get(inventory))
        .route("/api/v3/store/order", post(unavailable))
        .with_state(state)
}

/// A running upstream on a loopback port, on its own thread and runtime (so tests may be sync or
/// async); stopped on drop.
pub struct Upstream {
    pub url: String,
    pub store: Shared,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Upstream {
    pub fn start() -> Upstream {
        let store: Shared = Arc::default();
        let app = router(store.clone());
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await
                    .unwrap();
            });
        });
        Upstream { url: format!("http://{addr}/api/v3"), store, stop: Some(stop) }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.store.lock().unwrap().requests.clone()
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
