//! The HTTP client side of the CLI (`load`, `ingest`, `replay`): one agent, JSON answers,
//! and a server's error message passed through as it was written.

use std::time::Duration;

use serde_json::Value;

pub struct Client {
    agent: ureq::Agent,
    base: String,
}

impl Client {
    pub fn new(url: &str) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .build()
            .into();
        Client {
            agent,
            base: url.trim_end_matches('/').to_string(),
        }
    }

    /// POSTs `body` to `path` (with its query string); the JSON answer, or the server's error.
    pub fn post(&self, path: &str, content_type: &str, body: &[u8]) -> Result<Value, String> {
        let url = format!("{}{path}", self.base);
        let resp = self
            .agent
            .post(&url)
            .header("Content-Type", content_type)
            .send(body)
            .map_err(|e| format!("POST {url}: {e}"))?;
        Self::answer("POST", &url, resp)
    }

    /// GETs `path`; the JSON answer, or the server's error.
    pub fn get(&self, path: &str) -> Result<Value, String> {
        let url = format!("{}{path}", self.base);
        let resp = self
            .agent
            .get(&url)
            .call()
            .map_err(|e| format!("GET {url}: {e}"))?;
        Self::answer("GET", &url, resp)
    }

    fn answer(
        method: &str,
        url: &str,
        resp: ureq::http::Response<ureq::Body>,
    ) -> Result<Value, String> {
        let status = resp.status();
        let text = resp
            .into_body()
            .read_to_string()
            .map_err(|e| format!("{method} {url}: reading the answer: {e}"))?;
        if status != 200 {
            return Err(format!("{method} {url}: {status}: {text}"));
        }
        serde_json::from_str(&text).map_err(|e| format!("{method} {url}: {e}: {text}"))
    }
}
