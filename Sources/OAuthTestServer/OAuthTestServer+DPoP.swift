extension OAuthTestServer {
    // MARK: - DPoP (RFC 9449)

    /// The nonce DPoP proofs must carry while ``Configuration/dpopNonces`` is on, as `DPoP-Nonce` sends it.
    package var dpopNonce: String {
        state.withLock { $0.dpop.nonce }
    }

    /// Makes a new DPoP nonce, as `POST /_admin/dpop/rotate-nonce` does: proofs with the old one answer
    /// `use_dpop_nonce` from now on.
    ///
    /// - Returns: The new nonce.
    @discardableResult
    package func rotateDPoPNonce() -> String {
        state.withLock { $0.dpop.rotateNonce() }
    }

    /// The thumbprint of the DPoP key `token` (an access or refresh token this server issued) is bound to — its
    /// `cnf.jkt` — whether or not the token is still valid; `nil` for a bearer token or one it never issued.
    package func dpopThumbprint(ofToken token: String) -> String? {
        state.withLock { $0.ledger.dpopThumbprint(of: token) }
    }
}
