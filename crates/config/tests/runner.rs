//! `[runner]` and `[models.<name>]` of `switchyard.toml`: layered like every section, checked
//! where they are written, no API key ever read from a file, and the resolution of a named model
//! or the command line's flags into what the runner talks to.

use std::fs;

use switchyard_config::Error;
use switchyard_config::{
    Config, Environment, ModelFlags, ModelPrice, Origin, Overrides, ResolvedModel, RunnerConfig, SendReasoning,
};

struct Folders {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Folders {
    fn new() -> Self {
        Self { home: tempfile::tempdir().unwrap(), project: tempfile::tempdir().unwrap() }
    }

    fn user_file(&self) -> std::path::PathBuf {
        self.home.path().join("switchyard.toml")
    }

    fn project_file(&self) -> std::path::PathBuf {
        self.project.path().join("switchyard.toml")
    }

    fn resolve(&self, variables: &[(&str, &str)]) -> Result<Config, Error> {
        Config::resolve_with(
            Overrides {
                home: Some(self.home.path().to_owned()),
                store: None,
                project_root: Some(self.project.path().to_owned()),
            },
            &Environment::from_pairs(variables.iter().copied()),
        )
    }

    /// The error of a project file holding `text`, with the file's path shown as `[file]`.
    fn project_error(&self, text: &str) -> (String, String) {
        fs::write(self.project_file(), text).unwrap();
        let error = self.resolve(&[]).unwrap_err();
        let shown = error.to_string().replace(&self.project_file().display().to_string(), "[file]");
        (error.code().to_owned(), shown)
    }
}

fn config_of(text: &str) -> Config {
    let folders = Folders::new();
    fs::write(folders.project_file(), text).unwrap();
    folders.resolve(&[]).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn without_a_file_the_runner_has_its_defaults_and_no_model() {
    let config = Folders::new().resolve(&[]).unwrap();
    assert_eq!(config.runner, RunnerConfig::default());
    assert_eq!(config.runner.max_retries, 6);
    assert!(!config.runner.auto_approve);
    assert!(config.models.is_empty());
}

#[test]
fn runner_keys_and_model_tables_layer_key_by_key() {
    let folders = Folders::new();
    fs::write(
        folders.user_file(),
        "[runner]\nmax_turns = 50\nstuck_turns = 20\n\n[models.local]\nbase_url = \"http://localhost:11434/v1\"\ntemperature = 0.1\n\n[models.hosted]\nmodel = \"gpt-4.1\"\n",
    )
    .unwrap();
    fs::write(
        folders.project_file(),
        "[runner]\nmax_retries = 2\nauto_approve = true\n\n[models.local]\ntemperature = 0.7\n",
    )
    .unwrap();
    let config =
        folders.resolve(&[("SWITCHYARD_RUNNER_MAX_TURNS", "70"), ("SWITCHYARD_RUNNER_MODEL", "local")]).unwrap();

    assert_eq!(config.runner.max_turns, 70, "the variable wins over the user's file");
    assert_eq!(config.runner.stuck_turns, 20);
    assert_eq!(config.runner.max_retries, 2);
    assert!(config.runner.auto_approve);
    assert_eq!(config.runner.model.as_deref(), Some("local"));
    assert_eq!(config.model_names(), ["hosted", "local"]);
    let local = &config.models["local"];
    assert_eq!(local.base_url.as_deref(), Some("http://localhost:11434/v1"), "kept from the user's file");
    assert_eq!(local.temperature, Some(0.7), "the project's file wins");
    assert_eq!(config.origin("runner.max_turns"), Origin::Environment("SWITCHYARD_RUNNER_MAX_TURNS".into()));
    assert_eq!(
        config.origin("models.local.temperature"),
        Origin::File { path: folders.project_file(), line: 6, column: 1 }
    );
    assert_eq!(config.origin("models.local.base_url"), Origin::File { path: folders.user_file(), line: 6, column: 1 });

    let settings = config.settings(&str::to_owned);
    let setting = |key: &str| settings.iter().find(|setting| setting.key == key).unwrap_or_else(|| panic!("{key}"));
    assert_eq!(setting("runner.max_turns").value, 70);
    assert_eq!(setting("runner.max_turns").variable.as_deref(), Some("SWITCHYARD_RUNNER_MAX_TURNS"));
    assert_eq!(setting("models.local.temperature").value, 0.7);
    assert_eq!(setting("models.local.temperature").variable, None);
    assert_eq!(setting("models.hosted.model").value, "gpt-4.1");
    assert!(setting("models.hosted.base_url").value.is_null());
    let model_keys: Vec<&str> =
        settings.iter().map(|setting| setting.key.as_str()).filter(|key| key.starts_with("models.")).collect();
    assert_eq!(model_keys.len(), 20, "every key of each of the two tables: {model_keys:?}");
    assert!(model_keys.windows(2).all(|pair| pair[0].split('.').nth(1) <= pair[1].split('.').nth(1)), "{model_keys:?}");
}

#[test]
fn a_model_table_may_be_named_with_dots_as_model_ids_often_are() {
    let folders = Folders::new();
    fs::write(
        folders.project_file(),
        "[models.\"gpt-4.1\"]\nbase_url = \"https://api.example/v1\"\ntemperature = 0.3\n",
    )
    .unwrap();
    let config = folders.resolve(&[]).unwrap();
    let model = config.run_model(&flags(Some("gpt-4.1"), None, None)).unwrap();
    assert_eq!(
        (model.name.as_deref(), model.model.as_str(), model.temperature),
        (Some("gpt-4.1"), "gpt-4.1", Some(0.3))
    );
    assert_eq!(
        config.origin("models.gpt-4.1.temperature"),
        Origin::File { path: folders.project_file(), line: 3, column: 1 }
    );
    let settings = config.settings(&str::to_owned);
    let temperature = settings.iter().find(|setting| setting.key == "models.gpt-4.1.temperature").unwrap();
    assert_eq!(temperature.value, 0.3);
}

#[test]
fn an_unknown_key_in_a_model_table_is_located_with_the_closest_key() {
    let folders = Folders::new();
    let check = |text: &str, expected: &str| {
        let (code, message) = folders.project_error(text);
        assert_eq!((code.as_str(), message.as_str()), ("CONFIG_INVALID", expected));
    };
    check(
        "[models.local]\nbase_url = \"http://h/v1\"\ntemprature = 0.2\n",
        "[file]:3:1: unknown key `temprature` in [models.local]; did you mean `temperature`?",
    );
    check("[runner]\nmax_turn = 4\n", "[file]:2:1: unknown key `max_turn` in [runner]; did you mean `max_turns`?");
    check("[modles.local]\nmodel = \"x\"\n", "[file]:1:2: unknown section [modles]; did you mean [models.<name>]?");
    check(
        "[models]\nlocal = \"llama\"\n",
        "[file]:2:9: `local` in [models] is not a table: each entry is a table of its own, [models.local], with the keys `base_url`, `model`, `api_key_env`, `temperature`, `max_tokens`, `context_window`, `input_price_per_mtok`, `output_price_per_mtok`, `stream`, `send_reasoning`",
    );
    check(
        "[models.local]\ntemperature = \"hot\"\n",
        "[file]:2:15: [models.local] temperature is the text \"hot\", but it takes a number such as 0.8",
    );
}

#[test]
fn an_api_key_written_in_a_file_is_refused_pointing_to_api_key_env() {
    let folders = Folders::new();
    for text in [
        "[models.hosted]\nbase_url = \"https://api.example/v1\"\napi_key = \"sk-live-abcdef123456\"\n",
        "[runner]\napi_key = \"sk-live-abcdef123456\"\n",
        "[models.hosted]\ntoken = \"sk-live-abcdef123456\"\n",
    ] {
        let (code, message) = folders.project_error(text);
        assert_eq!(code, "CONFIG_INVALID");
        assert!(message.starts_with("[file]:"), "{message}");
        assert!(message.contains("never reads an API key from a file"), "{message}");
        assert!(message.contains("api_key_env = \"OPENAI_API_KEY\""), "{message}");
        assert!(!message.contains("sk-live"), "{message}");
    }
}

#[test]
fn a_key_written_where_its_variable_belongs_is_refused_without_showing_it() {
    let folders = Folders::new();
    let (code, message) = folders.project_error("[models.hosted]\n\napi_key_env = \"sk-live-abcdef123456\"\n");
    assert_eq!(code, "CONFIG_INVALID");
    assert!(message.starts_with("[file]:3:1: [models.hosted] api_key_env names the environment variable"), "{message}");
    assert!(message.contains("if it is the key itself, remove it"), "{message}");
    assert!(!message.contains("sk-live"), "{message}");
    let variable = folders.resolve(&[("SWITCHYARD_RUNNER_API_KEY_ENV", "sk-live-abcdef123456")]);
    fs::remove_file(folders.project_file()).unwrap();
    let variable = variable.unwrap_err().to_string();
    assert!(!variable.contains("sk-live"), "{variable}");
    let variable =
        folders.resolve(&[("SWITCHYARD_RUNNER_API_KEY_ENV", "sk-live-abcdef123456")]).unwrap_err().to_string();
    assert!(variable.starts_with("SWITCHYARD_RUNNER_API_KEY_ENV: [runner] api_key_env names"), "{variable}");
    assert!(!variable.contains("sk-live"), "{variable}");
}

#[test]
fn values_no_run_could_use_are_refused_where_they_are_written() {
    let folders = Folders::new();
    let check = |text: &str, expected: &str| {
        let (code, message) = folders.project_error(text);
        assert_eq!(code, "CONFIG_INVALID", "{message}");
        assert!(message.starts_with(expected), "{text}: {message}");
    };
    check("[runner]\nmax_turns = 0\n", "[file]:2:1: [runner] max_turns = 0 would stop every run");
    check("[runner]\nrequest_timeout_seconds = 0\n", "[file]:2:1: [runner] request_timeout_seconds = 0");
    check("[runner]\nstuck_repeats = 1\n", "[file]:2:1: [runner] stuck_repeats = 1 would call any tool call a repeat");
    check(
        "[runner]\nbase_url = \"localhost:8080\"\n",
        "[file]:2:1: [runner] base_url = `localhost:8080` is not an http:// or https:// URL",
    );
    check("[runner]\nmodel = \" \"\n", "[file]:2:1: [runner] model is empty");
    check("[models.m]\nbase_url = \"https://u:secret@host/v1\"\n", "[file]:2:1: [models.m] base_url holds credentials");
    check("[models.m]\ntemperature = 2.5\n", "[file]:2:1: [models.m] temperature = 2.5 is out of range");
    check("[models.m]\nmax_tokens = 0\n", "[file]:2:1: [models.m] max_tokens = 0 leaves no room");
    check("[models.m]\ncontext_window = 0\n", "[file]:2:1: [models.m] context_window = 0");
    check(
        "[models.m]\nsend_reasoning = \"sometimes\"\n",
        "[file]:2:18: [models.m] send_reasoning: unknown variant `sometimes`: it takes one of `auto`, `always`, `never`",
    );
    check(
        "[models.m]\noutput_price_per_mtok = -1.0\n",
        "[file]:2:1: [models.m] output_price_per_mtok = -1 is not a price",
    );
    let (_, message) = folders.project_error("[models.m]\nbase_url = \"https://u:secret@host/v1\"\n");
    assert!(!message.contains("secret"), "{message}");
    fs::remove_file(folders.project_file()).unwrap();
    let error = folders.resolve(&[("SWITCHYARD_RUNNER_MAX_TURNS", "0")]).unwrap_err().to_string();
    assert!(error.starts_with("SWITCHYARD_RUNNER_MAX_TURNS: [runner] max_turns = 0"), "{error}");
}

const MODELS: &str = r#"
[runner]
model = "local"
api_key_env = "RUNNER_KEY"
base_url = "http://runner.example/v1"

[models.local]
base_url = "http://localhost:11434/v1"
model = "qwen2.5-coder:14b"
temperature = 0.2
max_tokens = 2048
context_window = 32768

[models.hosted]
base_url = "https://api.example/v1"
model = "big-1"
api_key_env = "HOSTED_KEY"
input_price_per_mtok = 2.0
output_price_per_mtok = 8.0
stream = true
send_reasoning = "never"

[models.bare]
"#;

fn flags(model: Option<&str>, base_url: Option<&str>, api_key_env: Option<&str>) -> ModelFlags {
    ModelFlags {
        model: model.map(str::to_owned),
        base_url: base_url.map(str::to_owned),
        api_key_env: api_key_env.map(str::to_owned),
    }
}

#[test]
fn a_runs_model_is_the_flag_else_runner_model_with_the_flags_over_its_table_over_runner() {
    let config = config_of(MODELS);
    let default = config.run_model(&ModelFlags::default()).unwrap();
    assert_eq!(
        default,
        ResolvedModel {
            name: Some("local".into()),
            base_url: "http://localhost:11434/v1".into(),
            model: "qwen2.5-coder:14b".into(),
            api_key_env: Some("RUNNER_KEY".into()),
            temperature: Some(0.2),
            max_tokens: Some(2048),
            context_window: Some(32768),
            price: None,
            stream: false,
            send_reasoning: SendReasoning::Auto,
        }
    );
    assert_eq!(default.label(), "local (qwen2.5-coder:14b)");

    let hosted = config.run_model(&flags(Some("hosted"), None, None)).unwrap();
    assert_eq!((hosted.model.as_str(), hosted.api_key_env.as_deref()), ("big-1", Some("HOSTED_KEY")));
    assert_eq!(hosted.price, Some(ModelPrice { input_per_mtok: 2.0, output_per_mtok: 8.0 }));
    assert_eq!((hosted.stream, hosted.send_reasoning), (true, SendReasoning::Never));

    let overridden =
        config.run_model(&flags(Some("hosted"), Some("http://proxy.example/v1"), Some("OTHER_KEY"))).unwrap();
    assert_eq!(
        (overridden.base_url.as_str(), overridden.api_key_env.as_deref()),
        ("http://proxy.example/v1", Some("OTHER_KEY"))
    );

    let bare = config.run_model(&flags(Some("bare"), None, None)).unwrap();
    assert_eq!(bare.model, "bare", "the table's name is the model id");
    assert_eq!((bare.base_url.as_str(), bare.api_key_env.as_deref()), ("http://runner.example/v1", Some("RUNNER_KEY")));
    assert_eq!(bare.label(), "bare");
}

#[test]
fn a_model_id_not_configured_is_sent_as_it_is_when_a_server_is_known() {
    let with_base_url = config_of("[runner]\nbase_url = \"http://localhost:8080/v1\"\n");
    let model = with_base_url.run_model(&flags(Some("llama3.1:8b"), None, None)).unwrap();
    assert_eq!((model.name, model.model.as_str()), (None, "llama3.1:8b"));
    assert_eq!(model.base_url, "http://localhost:8080/v1");

    let empty = config_of("");
    let model = empty.run_model(&flags(Some("llama3.1:8b"), Some("http://127.0.0.1:9/v1"), None)).unwrap();
    assert_eq!((model.base_url.as_str(), model.api_key_env), ("http://127.0.0.1:9/v1", None));

    let error = empty.run_model(&flags(Some("llama3.1:8b"), None, None)).unwrap_err();
    assert_eq!(error.code(), "MODEL_UNKNOWN");
    assert_eq!(
        error.to_string(),
        "no model named `llama3.1:8b` in the configuration; no model is configured: add a [models.<name>] table to switchyard.toml (docs/configuration.md); or pass --base-url to send `llama3.1:8b` to a server as a model id"
    );
    let bad_flag = empty.run_model(&flags(Some("m"), Some("localhost:8080"), None)).unwrap_err().to_string();
    assert!(bad_flag.starts_with("--base-url: the base URL = `localhost:8080` is not an http://"), "{bad_flag}");
    let bad_variable = empty.run_model(&flags(Some("m"), Some("http://h/v1"), Some("sk-123"))).unwrap_err().to_string();
    assert!(bad_variable.starts_with("--api-key-env: the API key variable names") && !bad_variable.contains("sk-123"));
}

#[test]
fn no_model_or_no_server_stops_before_the_first_request_saying_what_to_set() {
    let error = config_of("").run_model(&ModelFlags::default()).unwrap_err();
    assert_eq!(error.code(), "INVALID_INPUT");
    assert!(error.to_string().contains("pass --model <id> with --base-url"), "{error}");
    let error = config_of("[models.a]\n[models.b]\n").run_model(&ModelFlags::default()).unwrap_err();
    assert!(error.to_string().contains("one of the configured models (a, b), or set [runner] model"), "{error}");
    let error = config_of("[models.a]\nmodel = \"x\"\n").run_model(&flags(Some("a"), None, None)).unwrap_err();
    assert_eq!(error.code(), "CONFIG_INVALID");
    assert_eq!(
        error.to_string(),
        "the model `a` has no server: set base_url in [models.a] (or [runner] base_url), or pass --base-url"
    );
}

#[test]
fn a_steps_model_must_be_configured_and_its_table_wins_over_the_flags() {
    let config = config_of(MODELS);
    let error = config.named_model("gpt-5", &ModelFlags::default()).unwrap_err();
    assert_eq!(error.code(), "MODEL_UNKNOWN");
    assert_eq!(
        error.to_string(),
        "no model named `gpt-5` in the configuration; the configured models are bare, hosted, local (`switchyard config` shows them)"
    );
    let proxy = flags(None, Some("http://proxy.example/v1"), Some("FLAG_KEY"));
    let hosted = config.named_model("hosted", &proxy).unwrap();
    assert_eq!(
        (hosted.base_url.as_str(), hosted.api_key_env.as_deref()),
        ("https://api.example/v1", Some("HOSTED_KEY"))
    );
    let bare = config.named_model("bare", &proxy).unwrap();
    assert_eq!((bare.base_url.as_str(), bare.api_key_env.as_deref()), ("http://proxy.example/v1", Some("FLAG_KEY")));
    let bare = config.named_model("bare", &ModelFlags::default()).unwrap();
    assert_eq!((bare.base_url.as_str(), bare.api_key_env.as_deref()), ("http://runner.example/v1", Some("RUNNER_KEY")));
}

#[test]
fn a_missing_key_variable_is_named_and_no_value_is_ever_held() {
    let config = config_of(MODELS);
    let hosted = config.run_model(&flags(Some("hosted"), None, None)).unwrap();
    let error = hosted.check_key(|_| false).unwrap_err();
    assert_eq!(error.code(), "API_KEY_MISSING");
    assert_eq!(
        error.to_string(),
        "the model hosted (big-1) reads its API key from the environment variable HOSTED_KEY, which is not set (or empty): export HOSTED_KEY=<your key> in the shell that runs switchyard, or name another variable with `api_key_env` (or --api-key-env)"
    );
    assert!(hosted.check_key(|variable| variable == "HOSTED_KEY").is_ok());
    let local_server = config_of("[models.local]\nbase_url = \"http://localhost:8080/v1\"\n");
    let keyless = local_server.run_model(&flags(Some("local"), None, None)).unwrap();
    assert!(keyless.check_key(|_| false).is_ok(), "no variable named, no key needed");
    assert!(keyless.check_key_in_environment().is_ok());
}

#[test]
fn the_commands_a_model_may_run_are_a_section_within_runner_or_variables() {
    let folders = Folders::new();
    fs::write(
        folders.project_file(),
        "[runner]\nmax_turns = 9\n\n[runner.commands]\nallow = [\"cargo test\", \"python3  -m unittest\"]\ntimeout_seconds = 30\nnetwork = true\nenv = [\"CARGO_HOME\"]\n",
    )
    .unwrap();
    let config = folders.resolve(&[]).unwrap();
    let commands = &config.runner.commands;
    let words = |text: &str| text.split(' ').map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(commands.allow, [words("cargo test"), words("python3 -m unittest")], "words split at any space");
    assert_eq!((commands.timeout_seconds, commands.network, commands.max_output_bytes), (30, true, 32 * 1024));
    assert_eq!(config.runner.max_turns, 9, "the section within does not hide [runner]'s own keys");
    assert_eq!(
        config.origin("runner.commands.timeout_seconds"),
        Origin::File { path: folders.project_file(), line: 6, column: 1 }
    );

    let variables = [("SWITCHYARD_RUNNER_COMMANDS_ALLOW", "npm test,make check")];
    let config = folders.resolve(&variables).unwrap();
    assert_eq!(config.runner.commands.allow, [words("npm test"), words("make check")], "the variable wins");
    assert_eq!(config.runner.commands.timeout_seconds, 30, "the file's other keys stay");

    let check = |text: &str, expected: &str| {
        let (_, message) = folders.project_error(text);
        assert!(message.starts_with(expected), "{text}: {message}");
    };
    check("[runner.commands]\nallow_all = true\n", "[file]:2:1: unknown key `allow_all` in [runner.commands]");
    check(
        "[runner.commands]\nallow = [\"cargo test\", \" \"]\n",
        "[file]:2:1: [runner.commands] allow holds an empty command",
    );
    check("[runner.commands]\ntimeout_seconds = 0\n", "[file]:2:1: [runner.commands] timeout_seconds = 0");
    check("[runner]\ncommands = 3\n", "[file]:2:1: [runner.commands] is a table");
}
