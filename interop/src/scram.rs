//! The client side of SCRAM-SHA-256 (RFC 5802 with RFC 7677's hash), as Kafka's
//! `ScramSaslClient` speaks it inside SaslAuthenticate: no channel binding (`n,,`), no
//! extensions.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::client::hex;

type HmacSha256 = Hmac<Sha256>;

/// One SCRAM-SHA-256 conversation.
pub struct ScramSha256 {
    password: String,
    nonce: String,
    client_first_bare: String,
    server_signature: Option<Vec<u8>>,
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut m = HmacSha256::new_from_slice(key).expect("HMAC takes keys of any length");
    m.update(data);
    m.finalize().into_bytes().to_vec()
}

/// `saslname` escaping of RFC 5802 section 5.1.
fn escape(name: &str) -> String {
    name.replace('=', "=3D").replace(',', "=2C")
}

impl ScramSha256 {
    /// A conversation for `user`, with a client nonce unique to this process and moment.
    pub fn new(user: &str, password: &str) -> Self {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let seed = format!("{t}-{}-{user}", std::process::id());
        Self::with_nonce(user, password, &hex(&Sha256::digest(seed.as_bytes())[..18]))
    }

    /// A conversation with the given client nonce (printable ASCII without `,`).
    pub fn with_nonce(user: &str, password: &str, nonce: &str) -> Self {
        ScramSha256 {
            password: password.to_owned(),
            client_first_bare: format!("n={},r={nonce}", escape(user)),
            nonce: nonce.to_owned(),
            server_signature: None,
        }
    }

    /// The client-first message.
    pub fn client_first(&self) -> Vec<u8> {
        format!("n,,{}", self.client_first_bare).into_bytes()
    }

    /// The client-final message, from the server-first message.
    pub fn client_final(&mut self, server_first: &[u8]) -> Result<Vec<u8>, String> {
        let sf = std::str::from_utf8(server_first)
            .map_err(|_| "server-first message is not UTF-8".to_owned())?;
        let attr = |k: &str| {
            sf.split(',')
                .find_map(|a| a.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
                .ok_or_else(|| format!("server-first message {sf:?} has no `{k}`"))
        };
        let nonce = attr("r")?;
        if !nonce.starts_with(&self.nonce) {
            return Err(format!("server nonce {nonce:?} does not extend ours"));
        }
        let salt = B64
            .decode(attr("s")?)
            .map_err(|e| format!("salt is not base64: {e}"))?;
        let iterations: u32 = attr("i")?
            .parse()
            .map_err(|e| format!("iteration count: {e}"))?;
        let mut salted = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(self.password.as_bytes(), &salt, iterations, &mut salted);
        let client_key = hmac(&salted, b"Client Key");
        let stored_key = Sha256::digest(&client_key);
        let without_proof = format!("c=biws,r={nonce}");
        let auth_message = format!("{},{sf},{without_proof}", self.client_first_bare);
        let client_signature = hmac(&stored_key, auth_message.as_bytes());
        let proof: Vec<u8> = client_key
            .iter()
            .zip(&client_signature)
            .map(|(a, b)| a ^ b)
            .collect();
        let server_key = hmac(&salted, b"Server Key");
        self.server_signature = Some(hmac(&server_key, auth_message.as_bytes()));
        Ok(format!("{without_proof},p={}", B64.encode(proof)).into_bytes())
    }

    /// Checks the server-final message's signature (the server proves it knows the key).
    pub fn verify_server_final(&self, server_final: &[u8]) -> Result<(), String> {
        let sf = std::str::from_utf8(server_final)
            .map_err(|_| "server-final message is not UTF-8".to_owned())?;
        if let Some(e) = sf.strip_prefix("e=") {
            return Err(format!("server error: {e}"));
        }
        let v = sf
            .strip_prefix("v=")
            .ok_or_else(|| format!("server-final message {sf:?} has no verifier"))?;
        let got = B64
            .decode(v.split(',').next().unwrap_or(""))
            .map_err(|e| format!("verifier is not base64: {e}"))?;
        match &self.server_signature {
            Some(want) if *want == got => Ok(()),
            Some(_) => Err("the server signature does not match".to_owned()),
            None => Err("server-final before client-final".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ScramSha256;

    /// The SCRAM-SHA-256 exchange of RFC 7677, section 3.
    #[test]
    fn rfc7677_exchange() {
        let mut s = ScramSha256::with_nonce("user", "pencil", "rOprNGfwEbeRWgbNEkqO");
        assert_eq!(s.client_first(), b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
            s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        let fin = s.client_final(server_first).expect("client-final");
        assert_eq!(
            String::from_utf8(fin).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
             p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        s.verify_server_final(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .expect("server signature");
        assert!(s
            .verify_server_final(b"v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .is_err());
        assert!(s.verify_server_final(b"e=invalid-proof").is_err());
    }

    #[test]
    fn a_nonce_the_server_did_not_extend_is_refused() {
        let mut s = ScramSha256::with_nonce("user", "pencil", "abc");
        assert!(s
            .client_final(b"r=xyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
            .is_err());
    }
}
