//! Descriptive fields carried with a state: used by query filters, never by the geometry.

use std::sync::Arc;

use crate::error::StateError;

/// Longest accepted `name`, `kind`, `group` or `status`, in bytes.
pub const MAX_META_BYTES: usize = 256;

/// What a client may say about an object besides its motion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// Display name (a vessel name, a call sign).
    pub name: Option<String>,
    /// What it is (`cargo`, `tug`, `aircraft`, ...).
    pub kind: Option<String>,
    /// Fleet or group; `same_group=false` ignores pairs within one group.
    pub group: Option<String>,
    /// Navigation status (`moored`, `at_anchor`, ...); see `exclude_status`.
    pub status: Option<String>,
}

impl Meta {
    /// No field set.
    pub const EMPTY: Meta = Meta {
        name: None,
        kind: None,
        group: None,
        status: None,
    };

    /// The four fields as an input form carries them.
    pub fn of(
        name: &Option<String>,
        kind: &Option<String>,
        group: &Option<String>,
        status: &Option<String>,
    ) -> Meta {
        Meta {
            name: name.clone(),
            kind: kind.clone(),
            group: group.clone(),
            status: status.clone(),
        }
    }

    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        *self == Meta::EMPTY
    }

    /// Checks lengths; `None` when empty, so metadata-free states carry no allocation.
    pub(crate) fn validated(&self) -> Result<Option<Arc<Meta>>, StateError> {
        for (field, value) in [
            ("name", &self.name),
            ("kind", &self.kind),
            ("group", &self.group),
            ("status", &self.status),
        ] {
            if let Some(v) = value
                && v.len() > MAX_META_BYTES
            {
                return Err(StateError::TooLong {
                    field,
                    len: v.len(),
                    max: MAX_META_BYTES,
                });
            }
        }
        Ok((!self.is_empty()).then(|| Arc::new(self.clone())))
    }
}
