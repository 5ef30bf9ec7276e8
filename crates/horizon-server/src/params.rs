//! Query-string parameters, checked strictly: an unknown or malformed parameter is a 400
//! naming it, so a typo (`horizn=5`) never silently falls back to a default.

use std::collections::HashMap;

use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use horizon_core::Algorithm;

use crate::error::ApiError;

pub struct Params(HashMap<String, String>);

impl Params {
    pub fn new(
        q: Result<Query<HashMap<String, String>>, QueryRejection>,
        allowed: &[&str],
    ) -> Result<Params, ApiError> {
        let Query(map) = q.map_err(|e| ApiError::bad_request("bad_query", e.body_text()))?;
        if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(ApiError::bad_request(
                "unknown_parameter",
                format!(
                    "unknown query parameter `{k}`; expected one of: {}",
                    allowed.join(", ")
                ),
            ));
        }
        Ok(Params(map))
    }

    pub fn f64(&self, name: &str) -> Result<Option<f64>, ApiError> {
        self.0
            .get(name)
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| {
                        ApiError::bad_request(
                            "bad_parameter",
                            format!("`{name}` must be a finite number, got `{v}`"),
                        )
                    })
            })
            .transpose()
    }

    pub fn required_f64(&self, name: &str) -> Result<f64, ApiError> {
        self.f64(name)?.ok_or_else(|| {
            ApiError::bad_request(
                "missing_parameter",
                format!("query parameter `{name}` is required"),
            )
        })
    }

    pub fn usize(&self, name: &str) -> Result<Option<usize>, ApiError> {
        self.0
            .get(name)
            .map(|v| {
                v.parse::<usize>().map_err(|_| {
                    ApiError::bad_request(
                        "bad_parameter",
                        format!("`{name}` must be a non-negative integer, got `{v}`"),
                    )
                })
            })
            .transpose()
    }

    pub fn bool(&self, name: &str) -> Result<Option<bool>, ApiError> {
        self.0
            .get(name)
            .map(|v| match v.as_str() {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(ApiError::bad_request(
                    "bad_parameter",
                    format!("`{name}` must be true or false, got `{v}`"),
                )),
            })
            .transpose()
    }

    /// A comma-separated list; empty items are dropped.
    pub fn list(&self, name: &str) -> Vec<String> {
        self.0.get(name).map_or_else(Vec::new, |v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    pub fn algorithm(&self) -> Result<Algorithm, ApiError> {
        match self.str("algorithm") {
            None => Ok(Algorithm::Grid),
            Some(a) => a.parse().map_err(|e: horizon_core::UnknownAlgorithm| {
                ApiError::bad_request("bad_parameter", e.to_string())
            }),
        }
    }
}

/// The alarm rules: `min_speed`, `exclude_status`, `max_age`, `same_group`.
pub fn filter_params(p: &Params) -> Result<horizon_core::PairFilter, ApiError> {
    let filter = horizon_core::PairFilter {
        min_speed: p.f64("min_speed")?.unwrap_or(0.0),
        passive_status: p.list("exclude_status"),
        same_group: p.bool("same_group")?.unwrap_or(true),
        max_age: p.f64("max_age")?,
    };
    filter.validate().map_err(crate::routes::query_error)?;
    Ok(filter)
}
