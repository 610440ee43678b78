/// A TPM object's attributes (`TPMA_OBJECT`, TPM 2.0 part 2 §8.3): what the key may do and whether it can leave the TPM.
public struct TPMObjectAttributes: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The object cannot be duplicated to another TPM (`fixedTPM`).
    public static let fixedTPM = TPMObjectAttributes(rawValue: 0x0000_0002)
    /// The object is not flushed by TPM2_Startup(CLEAR) (`stClear`, when set it is).
    public static let stClear = TPMObjectAttributes(rawValue: 0x0000_0004)
    /// The object cannot be duplicated to another parent (`fixedParent`).
    public static let fixedParent = TPMObjectAttributes(rawValue: 0x0000_0010)
    /// The TPM made the private part itself; no one ever saw it (`sensitiveDataOrigin`).
    public static let sensitiveDataOrigin = TPMObjectAttributes(rawValue: 0x0000_0020)
    /// The key's auth value (empty here) authorizes user actions such as signing (`userWithAuth`).
    public static let userWithAuth = TPMObjectAttributes(rawValue: 0x0000_0040)
    /// Administrative actions need a policy (`adminWithPolicy`).
    public static let adminWithPolicy = TPMObjectAttributes(rawValue: 0x0000_0080)
    /// Not subject to dictionary-attack protection (`noDA`).
    public static let noDA = TPMObjectAttributes(rawValue: 0x0000_0400)
    /// Duplication needs an encrypted inner wrapper (`encryptedDuplication`).
    public static let encryptedDuplication = TPMObjectAttributes(rawValue: 0x0000_0800)
    /// The key signs only digests the TPM made or checked (`restricted`).
    public static let restricted = TPMObjectAttributes(rawValue: 0x0001_0000)
    /// The key decrypts (`decrypt`); a storage parent has it.
    public static let decrypt = TPMObjectAttributes(rawValue: 0x0002_0000)
    /// The key signs (`sign`, also `encrypt` for symmetric keys).
    public static let sign = TPMObjectAttributes(rawValue: 0x0004_0000)

    /// Exactly what ``TPMDevice/createSigningKey()`` asks for: a key that signs, and that never leaves this TPM.
    public static let signingKey: TPMObjectAttributes = [
        .fixedTPM, .fixedParent, .sensitiveDataOrigin, .userWithAuth, .sign,
    ]

    /// The TCG's storage primary key (SRK): a restricted decryption key that never leaves the TPM.
    static let storagePrimary: TPMObjectAttributes = [
        .restricted, .decrypt, .fixedTPM, .fixedParent, .sensitiveDataOrigin, .userWithAuth, .noDA,
    ]

    public var description: String {
        let names: [(TPMObjectAttributes, String)] = [
            (.fixedTPM, "fixedTPM"), (.stClear, "stClear"), (.fixedParent, "fixedParent"),
            (.sensitiveDataOrigin, "sensitiveDataOrigin"), (.userWithAuth, "userWithAuth"),
            (.adminWithPolicy, "adminWithPolicy"), (.noDA, "noDA"), (.encryptedDuplication, "encryptedDuplication"),
            (.restricted, "restricted"), (.decrypt, "decrypt"), (.sign, "sign"),
        ]
        var parts = names.filter { contains($0.0) }.map(\.1)
        let unnamed = rawValue & ~names.reduce(0) { $0 | $1.0.rawValue }
        if unnamed != 0 { parts.append(TSS2ReturnCode.hex(unnamed)) }
        return "[" + parts.joined(separator: "|") + "]"
    }
}
