//! TLS to the server, as the store URL asks for it with libpq's own keys: `sslmode` (`disable`,
//! `prefer`, `require`, `verify-ca`, `verify-full`) and `sslrootcert`. tokio-postgres reads only
//! the first three modes and no root certificate, so this module takes both keys out of the
//! connection string, hands the driver the rest, and builds the rustls configuration that checks
//! what the mode asks: nothing for `prefer` and `require` (encryption against eavesdroppers, not
//! against a server in the middle, as libpq), the chain to a trusted root for `verify-ca`, the
//! chain and the host name for `verify-full`.
//!
//! The connector is `tokio-postgres-rustls` (it also hands the driver the channel binding that
//! SCRAM-SHA-256-PLUS needs), on the rustls and aws-lc-rs that reqwest already builds.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{verify_server_cert_signed_by_trust_anchor, verify_server_name};
use rustls::crypto::{WebPkiSupportedAlgorithms, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How much TLS the URL asks for, with libpq's names and meanings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    /// Never TLS.
    Disable,
    /// TLS when the server offers it, plain otherwise; libpq's default, and the store's.
    Prefer,
    /// TLS or no connection.
    Require,
    /// TLS, with the server's certificate signed by a trusted root.
    VerifyCa,
    /// TLS, with the server's certificate signed by a trusted root and naming the host.
    VerifyFull,
}

impl SslMode {
    const ALL: [(&'static str, SslMode); 5] = [
        ("disable", SslMode::Disable),
        ("prefer", SslMode::Prefer),
        ("require", SslMode::Require),
        ("verify-ca", SslMode::VerifyCa),
        ("verify-full", SslMode::VerifyFull),
    ];

    fn parse(value: &str) -> Result<SslMode, String> {
        if let Some((_, mode)) = Self::ALL.iter().find(|(name, _)| *name == value) {
            return Ok(*mode);
        }
        let advice = if value == "allow" {
            "`allow` (plain first, TLS if the server insists) is not supported: use `prefer` or `disable`"
        } else {
            "use disable, prefer, require, verify-ca or verify-full"
        };
        Err(format!("sslmode `{value}` is not a TLS mode; {advice}"))
    }

    pub(crate) fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, mode)| *mode == self).map_or("prefer", |(name, _)| name)
    }

    /// What the driver does before the handshake; the checks of the two `verify-` modes are this
    /// module's, on top of `require`.
    fn for_driver(self) -> tokio_postgres::config::SslMode {
        match self {
            SslMode::Disable => tokio_postgres::config::SslMode::Disable,
            SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => tokio_postgres::config::SslMode::Require,
        }
    }
}

/// What a store URL asks of TLS, read from it without touching the file system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsRequest {
    pub(crate) mode: SslMode,
    /// `sslrootcert`: a PEM file of trusted roots, or `system` for the system's.
    pub(crate) root_cert: Option<String>,
}

/// Reads a connection string (the URL form or `key=value` pairs): the driver's configuration,
/// and the TLS it asks for. The error says what is wrong without repeating the string, which may
/// hold a password.
pub(crate) fn parse(connection: &str) -> Result<(tokio_postgres::Config, TlsRequest), String> {
    let split = split(connection)?;
    let mode = match split.sslmode.as_deref() {
        Some(value) => SslMode::parse(value)?,
        None => SslMode::Prefer,
    };
    let mut config: tokio_postgres::Config =
        split.rest.parse().map_err(|error: tokio_postgres::Error| error.to_string())?;
    config.ssl_mode(mode.for_driver());
    // The driver has no name to give TLS when only `hostaddr` names the server; libpq then checks
    // the certificate against the address, and so does the store, with the address as the host.
    if config.get_hosts().is_empty() {
        for address in config.get_hostaddrs().to_vec() {
            config.host(address.to_string());
        }
    }
    Ok((config, TlsRequest { mode, root_cert: split.sslrootcert }))
}

/// A connection string with the keys this module reads taken out.
#[derive(Debug, Default, PartialEq, Eq)]
struct Split {
    /// The rest, for the driver.
    rest: String,
    sslmode: Option<String>,
    sslrootcert: Option<String>,
}

impl Split {
    /// Takes `key` when it is one of this module's (the last value of a key wins, as the driver's
    /// keys do); `false` for a key of the driver's.
    fn take(&mut self, key: &str, value: String) -> bool {
        match key {
            "sslmode" => self.sslmode = Some(value),
            "sslrootcert" => self.sslrootcert = Some(value),
            _ => return false,
        }
        true
    }
}

fn split(connection: &str) -> Result<Split, String> {
    for scheme in ["postgres://", "postgresql://"] {
        if let Some(after) = connection.strip_prefix(scheme) {
            return split_url(scheme, after);
        }
    }
    split_key_values(connection)
}

/// `postgres://user:password@host:port/database?key=value&…`: the parameters after the `?`, which
/// the driver looks for after the credentials, themselves ending at the first `@`.
fn split_url(scheme: &str, after: &str) -> Result<Split, String> {
    let credentials_end = after.find('@').map_or(0, |at| at + 1);
    let Some(question) = after[credentials_end..].find('?') else {
        return Ok(Split { rest: format!("{scheme}{after}"), ..Split::default() });
    };
    let (base, query) = after.split_at(credentials_end + question);
    let mut split = Split { rest: format!("{scheme}{base}"), ..Split::default() };
    let mut kept = Vec::new();
    for parameter in query[1..].split('&') {
        let (key, value) = parameter.split_once('=').unwrap_or((parameter, ""));
        if !split.take(&percent_decode(key)?, percent_decode(value)?) {
            kept.push(parameter);
        }
    }
    if !kept.is_empty() {
        split.rest.push('?');
        split.rest.push_str(&kept.join("&"));
    }
    Ok(split)
}

fn percent_decode(text: &str) -> Result<String, String> {
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .map(String::from)
        .map_err(|_| "a parameter of the URL is not UTF-8 once percent-decoded".to_owned())
}

/// `host=… dbname=… sslmode=…`: whitespace-separated `key = value` pairs, a value bare (a
/// backslash escapes the next character) or in single quotes. The driver's pairs are given back
/// quoted, so their values reach it unchanged.
fn split_key_values(connection: &str) -> Result<Split, String> {
    let mut split = Split::default();
    let mut kept = Vec::new();
    let mut characters = connection.chars().enumerate().peekable();
    let blank = |(_, character): &(usize, char)| character.is_whitespace();
    loop {
        while characters.next_if(blank).is_some() {}
        let at = characters.peek().map_or(0, |(at, _)| *at + 1);
        let mut key = String::new();
        while let Some((_, character)) =
            characters.next_if(|(_, character)| !character.is_whitespace() && *character != '=')
        {
            key.push(character);
        }
        if key.is_empty() {
            break;
        }
        while characters.next_if(blank).is_some() {}
        // The word is not named: in a string that is not pairs, it may be part of a password.
        if characters.next().map(|(_, character)| character) != Some('=') {
            return Err(format!("the word at character {at} of the connection string is not a `key=value` pair"));
        }
        while characters.next_if(blank).is_some() {}
        let quoted = characters.next_if(|(_, character)| *character == '\'').is_some();
        let mut value = String::new();
        loop {
            match characters.next().map(|(_, character)| character) {
                Some('\'') if quoted => break,
                Some('\\') => value.extend(characters.next().map(|(_, character)| character)),
                Some(character) if quoted || !character.is_whitespace() => value.push(character),
                Some(_) => break,
                None if quoted => {
                    return Err(format!("the quoted value of the connection parameter `{key}` is not closed"));
                }
                None => break,
            }
        }
        if value.is_empty() && !quoted {
            return Err(format!("the connection parameter `{key}` has no value"));
        }
        if !split.take(&key, value.clone()) {
            kept.push(format!("{key}='{}'", value.replace('\\', "\\\\").replace('\'', "\\'")));
        }
    }
    split.rest = kept.join(" ");
    Ok(split)
}

/// TLS as a store URL asks for it, ready to connect with.
#[derive(Clone)]
pub(crate) struct Tls {
    pub(crate) mode: SslMode,
    /// Where the trusted roots come from, for messages; `None` when the certificate is not checked.
    roots: Option<String>,
    pub(crate) connector: MakeRustlsConnect,
}

impl fmt::Debug for Tls {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_struct("Tls").field("mode", &self.mode).field("roots", &self.roots).finish_non_exhaustive()
    }
}

/// Where the trusted roots are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RootSource {
    File(PathBuf),
    System,
}

impl RootSource {
    fn describe(&self) -> String {
        match self {
            RootSource::File(path) => format!("sslrootcert {}", path.display()),
            RootSource::System => "the system's root certificates".to_owned(),
        }
    }
}

impl TlsRequest {
    /// Where the roots come from, as libpq finds them: `sslrootcert` (`system`: the system's),
    /// else `~/.postgresql/root.crt` when it exists. A root file in force makes `prefer` and
    /// `require` check the chain too, as in libpq; the `verify-` modes without one use the
    /// system's roots.
    fn root_source(&self) -> Option<RootSource> {
        match self.root_cert.as_deref() {
            Some("system") => return Some(RootSource::System),
            Some(path) => return Some(RootSource::File(PathBuf::from(path))),
            None => {}
        }
        let default_file = std::env::var_os("HOME").map(|home| Path::new(&home).join(".postgresql/root.crt"));
        match default_file {
            Some(file) if file.is_file() => Some(RootSource::File(file)),
            _ if matches!(self.mode, SslMode::VerifyCa | SslMode::VerifyFull) => Some(RootSource::System),
            _ => None,
        }
    }

    /// The connector: reads the trusted roots the request names. The error says which file or
    /// store failed and what to give instead.
    pub(crate) fn connector(&self) -> Result<Tls, String> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let source = if self.mode == SslMode::Disable { None } else { self.root_source() };
        let roots = source.as_ref().map(load_roots).transpose()?;
        let verifier = ServerCheck {
            roots: roots.map(Arc::new),
            check_name: self.mode == SslMode::VerifyFull,
            algorithms: provider.signature_verification_algorithms,
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| format!("setting up TLS: {error}"))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        Ok(Tls {
            mode: self.mode,
            roots: source.map(|source| source.describe()),
            connector: MakeRustlsConnect::new(config),
        })
    }
}

fn load_roots(source: &RootSource) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    match source {
        RootSource::File(path) => {
            let fix = "give sslrootcert a readable PEM file of the certificate authority that signed the server's certificate, or sslrootcert=system for the system's roots";
            let text = std::fs::read(path)
                .map_err(|error| format!("cannot read sslrootcert {} ({error}); {fix}", path.display()))?;
            for certificate in CertificateDer::pem_slice_iter(&text) {
                let certificate = certificate.map_err(|error| {
                    format!("sslrootcert {} is not PEM certificates ({error}); {fix}", path.display())
                })?;
                roots.add(certificate).map_err(|error| {
                    format!("sslrootcert {} holds a certificate that is no root ({error}); {fix}", path.display())
                })?;
            }
            if roots.is_empty() {
                return Err(format!("sslrootcert {} holds no certificate; {fix}", path.display()));
            }
        }
        RootSource::System => {
            let found = rustls_native_certs::load_native_certs();
            let (_, ignored) = roots.add_parsable_certificates(found.certs);
            if roots.is_empty() {
                let problems: Vec<String> = found.errors.iter().map(ToString::to_string).collect();
                return Err(format!(
                    "no usable system root certificate was found ({} unreadable{}{}); name the certificate authority that signed the server's certificate with sslrootcert=<file>",
                    ignored,
                    if problems.is_empty() { "" } else { ": " },
                    problems.join("; ")
                ));
            }
        }
    }
    Ok(roots)
}

/// The check of the server's certificate: none (`prefer` and `require` without roots), the chain
/// to `roots`, and the host name when `check_name`. The handshake's own signatures are always
/// checked, so the server holds the key of the certificate it shows.
#[derive(Debug)]
struct ServerCheck {
    roots: Option<Arc<RootCertStore>>,
    check_name: bool,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for ServerCheck {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(roots) = &self.roots else { return Ok(ServerCertVerified::assertion()) };
        let certificate = ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(&certificate, roots, intermediates, now, self.algorithms.all)?;
        if self.check_name {
            verify_server_name(&certificate, server_name)?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, certificate, signature, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, certificate, signature, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

impl Tls {
    /// What went wrong with TLS in a failed connection, and how to fix it; `None` when the
    /// failure is not TLS's.
    pub(crate) fn explain(&self, error: &tokio_postgres::Error) -> Option<String> {
        let mode = self.mode.name();
        if let Some(refused) = rustls_cause(error) {
            let roots = self.roots.as_deref().unwrap_or("no roots");
            return Some(match refused {
                rustls::Error::InvalidCertificate(
                    CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
                ) => format!(
                    "the server's certificate does not name the host connected to (sslmode={mode}: {refused}); connect with a host name the certificate names, or set sslmode=verify-ca to check only that a trusted root signed it"
                ),
                rustls::Error::InvalidCertificate(
                    CertificateError::Expired
                    | CertificateError::ExpiredContext { .. }
                    | CertificateError::NotValidYet
                    | CertificateError::NotValidYetContext { .. },
                ) => format!(
                    "the server's certificate is outside its validity period (sslmode={mode}: {refused}); renew the server's certificate, or check this machine's clock"
                ),
                rustls::Error::InvalidCertificate(_) => format!(
                    "the server's certificate is not signed by a trusted root, {roots} (sslmode={mode}: {refused}); give sslrootcert the certificate authority that signed the server's certificate, or set sslmode=require to encrypt without checking the certificate"
                ),
                other => format!(
                    "the TLS handshake with the server failed (sslmode={mode}: {other}); check the server's ssl settings, or set sslmode=disable to connect without TLS"
                ),
            });
        }
        // The driver's own TLS failures (the server offers no TLS, no host name to check) carry
        // no typed cause; its text for them is stable.
        let text = crate::pg_error::describe(error);
        text.starts_with("error performing TLS handshake").then(|| {
            format!(
                "{text} (sslmode={mode}); turn ssl on in the server's postgresql.conf, or set sslmode=prefer to fall back to a plain connection"
            )
        })
    }
}

/// The rustls error among the failure's causes: tokio-rustls wraps it in an `io::Error`, whose
/// `source` skips it, so each `io::Error` is opened.
fn rustls_cause(error: &tokio_postgres::Error) -> Option<&rustls::Error> {
    let mut cause = std::error::Error::source(error);
    while let Some(current) = cause {
        if let Some(refused) = current.downcast_ref::<rustls::Error>() {
            return Some(refused);
        }
        if let Some(inner) = current.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref)
            && let Some(refused) = inner.downcast_ref::<rustls::Error>()
        {
            return Some(refused);
        }
        cause = current.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Split, SslMode, parse, split};

    fn check(connection: &str, rest: &str, sslmode: Option<&str>, sslrootcert: Option<&str>) {
        let expected = Split {
            rest: rest.to_owned(),
            sslmode: sslmode.map(str::to_owned),
            sslrootcert: sslrootcert.map(str::to_owned),
        };
        assert_eq!(split(connection).unwrap(), expected, "{connection}");
    }

    #[test]
    fn the_tls_keys_are_taken_out_of_a_url_and_the_rest_is_kept_as_written() {
        check("postgres://u:p@db:5432/store", "postgres://u:p@db:5432/store", None, None);
        check("postgres://u:p@db/store?sslmode=verify-full", "postgres://u:p@db/store", Some("verify-full"), None);
        check(
            "postgresql://u@db/store?application_name=a%20b&sslrootcert=%2Fetc%2Fca%20root.pem&sslmode=verify-ca&connect_timeout=3",
            "postgresql://u@db/store?application_name=a%20b&connect_timeout=3",
            Some("verify-ca"),
            Some("/etc/ca root.pem"),
        );
        // A `?` in the password is the password's: the parameters start after the credentials.
        check("postgres://u:pa?ss@db/store?sslmode=require", "postgres://u:pa?ss@db/store", Some("require"), None);
    }

    #[test]
    fn the_tls_keys_are_taken_out_of_key_value_pairs_and_the_rest_reaches_the_driver_unchanged() {
        check(
            r"host=db user=u password='it\'s a \\ secret' sslmode = verify-full sslrootcert='/etc/my ca.pem'",
            r"host='db' user='u' password='it\'s a \\ secret'",
            Some("verify-full"),
            Some("/etc/my ca.pem"),
        );
        let (config, request) = parse(r"host=db password='a \'quoted\' word\\' sslmode=require").unwrap();
        assert_eq!(config.get_password(), Some(&br"a 'quoted' word\"[..]));
        assert_eq!(request.mode, SslMode::Require);
    }

    #[test]
    fn every_libpq_mode_is_read_and_prefer_is_the_default() {
        for (name, mode) in SslMode::ALL {
            let (config, request) = parse(&format!("postgres://u@db/store?sslmode={name}")).unwrap();
            assert_eq!(request.mode, mode);
            assert_eq!(mode.name(), name);
            let driver = if mode == SslMode::Disable || mode == SslMode::Prefer {
                mode.for_driver()
            } else {
                tokio_postgres::config::SslMode::Require
            };
            assert_eq!(config.get_ssl_mode(), driver);
        }
        assert_eq!(parse("postgres://u@db/store").unwrap().1.mode, SslMode::Prefer);
    }

    #[test]
    fn a_server_named_by_its_address_only_is_the_host_tls_checks() {
        let (config, _) = parse("hostaddr=10.0.0.7 port=5433 user=u sslmode=verify-full").unwrap();
        assert_eq!(config.get_hosts(), [tokio_postgres::config::Host::Tcp("10.0.0.7".to_owned())]);
    }

    #[test]
    fn an_unknown_mode_is_refused_naming_the_modes() {
        let error = parse("postgres://u:secret@db/store?sslmode=verify").unwrap_err();
        assert!(error.contains("verify-full") && error.contains("`verify`"), "{error}");
        assert!(!error.contains("secret"), "{error}");
        let error = parse("postgres://u@db/store?sslmode=allow").unwrap_err();
        assert!(error.contains("prefer"), "{error}");
        let error = parse("host=db password='never closed").unwrap_err();
        assert!(error.contains("password") && !error.contains("never"), "{error}");
    }
}
