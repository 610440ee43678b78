import CLibSecret

extension KeyringError {
    /// The error for a failure to connect to the Secret Service or open a session with it.
    ///
    /// A provider that is there but refuses the session (`InvalidArgs` to `OpenSession`) is misconfigured, not
    /// absent: KWallet without libqca's OpenSSL plugin says "createDLGroup failed: maybe libqca-ossl is missing".
    /// Everything else is "no Secret Service".
    static func connectionFailure(_ info: GErrorInfo) -> KeyringError {
        let invalidArguments = info.domain == String(cString: g_quark_to_string(g_dbus_error_quark()))
            && UInt32(bitPattern: info.code) == G_DBUS_ERROR_INVALID_ARGS.rawValue
        guard invalidArguments else { return .serviceUnavailable(info.detail) }
        if info.message.contains("createDLGroup") || info.message.contains("libqca") {
            return .kwalletCryptoPluginMissing(info.detail)
        }
        return .sessionRefused(info.detail)
    }
}
