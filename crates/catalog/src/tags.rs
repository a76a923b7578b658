//! WorkRail's tag catalog: a `workflow-tags.json` beside a workflow folder, or in WorkRail's own
//! layout at `../spec/workflow-tags.json`, names tags (with a display name and when to use them)
//! and which tags each workflow id carries, or that it is hidden from discovery. `list_workflows`
//! merges these with the tags workflows declare themselves.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::read::read_bounded;

/// The file a WorkRail source keeps its tag catalog in.
pub const TAG_CATALOG_FILE: &str = "workflow-tags.json";

/// The most bytes of a tag catalog read: far more than a hand-written catalog needs (WorkRail's
/// own, `spec/workflow-tags.json`, is about 7 KB), and a bound on a hostile file.
const MAX_TAG_CATALOG_BYTES: usize = 1024 * 1024;

/// What the tag catalogs of every discovery folder say, the first folder's word winning.
#[derive(Debug, Clone, Default)]
pub struct TagCatalog {
    /// Tags by id: how a person or an agent should read them.
    pub tags: BTreeMap<String, TagDescription>,
    /// Workflows by id: the tags the catalog gives them, and whether discovery hides them.
    pub workflows: BTreeMap<String, CatalogedWorkflow>,
}

/// One tag of a catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TagDescription {
    #[serde(default)]
    pub display_name: Option<String>,
    /// Situations the tag is for.
    #[serde(default)]
    pub when: Vec<String>,
}

/// One workflow's entry in a catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct CatalogedWorkflow {
    #[serde(default)]
    pub tags: Vec<String>,
    /// Left out of tag discovery (test and internal workflows).
    #[serde(default)]
    pub hidden: bool,
}

#[derive(Debug, Deserialize)]
struct CatalogFile {
    #[serde(default)]
    tags: Vec<CatalogTag>,
    #[serde(default)]
    workflows: BTreeMap<String, CatalogedWorkflow>,
}

#[derive(Debug, Deserialize)]
struct CatalogTag {
    id: String,
    #[serde(flatten)]
    description: TagDescription,
}

impl TagCatalog {
    /// The catalogs of `folders`, in precedence order: for each folder, its own
    /// `workflow-tags.json`, else WorkRail's `../spec/workflow-tags.json`. A catalog that cannot be
    /// read or parsed is logged and left out, so discovery never stops on it.
    pub fn of<'a>(folders: impl IntoIterator<Item = &'a Path>) -> Self {
        let mut merged = Self::default();
        for folder in folders {
            let beside = folder.join(TAG_CATALOG_FILE);
            let spec = folder.parent().map(|parent| parent.join("spec").join(TAG_CATALOG_FILE));
            let Some(path) = std::iter::once(beside).chain(spec).find(|path| path.is_file()) else { continue };
            match read(&path) {
                Ok(file) => merged.add(file),
                Err(reason) => tracing::warn!(path = %path.display(), %reason, "tag catalog left out"),
            }
        }
        merged
    }

    /// The tags of the workflow `id` that declares `declared`: those first, then what the catalog
    /// gives it, lower-cased, each once.
    pub fn tags_of(&self, id: &str, declared: &[String]) -> Vec<String> {
        let mut tags: Vec<String> = Vec::new();
        let cataloged = self.workflows.get(id).into_iter().flat_map(|entry| &entry.tags);
        for tag in declared.iter().chain(cataloged) {
            let tag = tag.to_lowercase();
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        tags
    }

    /// Whether the catalog hides the workflow `id` from tag discovery.
    pub fn hides(&self, id: &str) -> bool {
        self.workflows.get(id).is_some_and(|entry| entry.hidden)
    }

    fn add(&mut self, file: CatalogFile) {
        for tag in file.tags {
            self.tags.entry(tag.id.to_lowercase()).or_insert(tag.description);
        }
        for (id, workflow) in file.workflows {
            self.workflows.entry(id).or_insert(workflow);
        }
    }
}

fn read(path: &Path) -> Result<CatalogFile, String> {
    let bytes = read_bounded(path, MAX_TAG_CATALOG_BYTES).map_err(|unread| unread.reason(path))?;
    serde_json::from_slice(&bytes).map_err(|error| format!("not a WorkRail tag catalog: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &str = r#"{
        "version": 1,
        "tags": [{"id": "Review", "displayName": "Review and audit", "when": ["before merging"], "examples": ["x"]}],
        "workflows": {"audit": {"tags": ["review"]}, "scratch": {"tags": ["coding"], "hidden": true}}
    }"#;

    #[test]
    fn a_catalog_beside_the_folder_or_in_workrails_spec_folder_is_read_and_the_first_wins() {
        let root = tempfile::tempdir().unwrap();
        let own = root.path().join("own");
        let workrail = root.path().join("checkout/workflows");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::create_dir_all(&workrail).unwrap();
        std::fs::create_dir_all(root.path().join("checkout/spec")).unwrap();
        std::fs::write(own.join(TAG_CATALOG_FILE), r#"{"workflows": {"audit": {"tags": ["mine"]}}}"#).unwrap();
        std::fs::write(root.path().join("checkout/spec").join(TAG_CATALOG_FILE), CATALOG).unwrap();
        let catalog = TagCatalog::of([own.as_path(), workrail.as_path()]);
        assert_eq!(catalog.workflows["audit"].tags, ["mine"], "the first folder's word wins");
        assert!(catalog.hides("scratch") && !catalog.hides("audit"));
        assert_eq!(
            catalog.tags_of("audit", &["Mine".to_owned(), "own".to_owned()]),
            ["mine", "own"],
            "declared first, once"
        );
        let review = &catalog.tags["review"];
        assert_eq!(
            (review.display_name.as_deref(), review.when.as_slice()),
            (Some("Review and audit"), &["before merging".to_owned()][..])
        );
    }

    #[test]
    fn a_broken_catalog_is_left_out() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join(TAG_CATALOG_FILE), "{ not json").unwrap();
        let catalog = TagCatalog::of([folder.path()]);
        assert!(catalog.tags.is_empty() && catalog.workflows.is_empty());
    }
}
