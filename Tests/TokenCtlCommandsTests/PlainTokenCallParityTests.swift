import ArgumentParser
import Testing
import TokenCtlBase
import TokenCtlCommands

/// `tokenctl` reads the plain `token` call itself and hands every other list of arguments to `tokenctl-full`'s
/// parser. Both read options spelled, defaulted and bounded by `CommandLineOptions`; this checks that they agree on
/// every list built from those options — each subset in every order, and every combination of usual and edge
/// values — and on a list the reader accepts with each thing it declines put in at each place:
/// - a list the reader accepts, the parser reads as `token`, with the same service, account and keyring settings;
/// - a list within the reader's grammar (each option once, with a value that is no option, and both names) that the
///   parser reads as `token`, the reader accepts too: nothing that could be answered fast is handed over.
@Suite("the plain token call, read alike by tokenctl and by the parser")
struct PlainTokenCallParityTests {
    typealias Name = CommandLineOptions.Name

    /// Values for --service and --account: usual, empty, with a space, and ones that look like options.
    static let names = ["api.example.com", "a b", "", "-x", "--account"]
    /// Values for --timeout: within the bound, at it, beyond it, and what Double reads unlike a person.
    static let timeouts = ["5", "2.5", "0.001", "86400", "0", "-1", "86400.5", "inf", "nan", "0x10", " 5", "5s"]

    /// One option with its value, or the flag.
    struct Option {
        let name: String
        let values: [String]
    }

    static let options = [
        Option(name: Name.service, values: names), Option(name: Name.account, values: names),
        Option(name: Name.timeout, values: timeouts), Option(name: Name.noPrompt, values: []),
    ]

    /// Every subset of the options in every order, with usual values; and every combination of values, each option
    /// present or absent, in one order. (Every order of every combination would be ten thousand parses for the same
    /// answers: the reader and the parser read each option apart from the others.)
    static var built: [[String]] {
        let usual = ["--" + Name.service, "S", "--" + Name.account, "A", "--" + Name.timeout, "3"]
        var lists: [[String]] = []
        func orders(_ list: [String], remaining: [Option]) {
            lists.append(list)
            for (index, option) in remaining.enumerated() {
                var rest = remaining
                rest.remove(at: index)
                let given = option.values.isEmpty
                    ? ["--" + option.name] : ["--" + option.name, usual[usual.firstIndex(of: "--" + option.name)! + 1]]
                orders(list + given, remaining: rest)
            }
        }
        orders([CommandLineOptions.tokenCommand], remaining: options)
        var combinations: [[String]] = [[CommandLineOptions.tokenCommand]]
        for option in options {
            let choices: [[String]] = option.values.isEmpty
                ? [[], ["--" + option.name]] : [[]] + option.values.map { ["--" + option.name, $0] }
            combinations = combinations.flatMap { list in choices.map { list + $0 } }
        }
        return lists + combinations
    }

    /// What the reader declines by design, each put in at each place of a list it accepts.
    static var declined: [[String]] {
        let accepted = [
            CommandLineOptions.tokenCommand, "--" + Name.service, "S", "--" + Name.account, "A", "--" + Name.timeout,
            "3", "--" + Name.noPrompt,
        ]
        let insertions = [
            ["--" + Name.service, "T"], ["--" + Name.account, "B"], ["--" + Name.timeout, "4"], ["--" + Name.noPrompt],
            ["--\(Name.service)=S"], ["--\(Name.timeout)=3"], ["--help"], ["-h"], ["--version"], ["--keyring", "login"],
            ["--json"], ["--"], ["extra"], ["--" + Name.timeout], ["status"], [],
        ]
        return insertions.flatMap { insertion in
            (0...accepted.count).map { place in Array(accepted[..<place]) + insertion + Array(accepted[place...]) }
        }
    }

    /// Whether `arguments` are within the reader's grammar: `token`, then each option at most once with a value that
    /// does not begin with `-`, --service and --account among them.
    static func isInGrammar(_ arguments: [String]) -> Bool {
        guard arguments.first == CommandLineOptions.tokenCommand else { return false }
        var seen: Set<String> = []
        var rest = arguments.dropFirst()
        while let flag = rest.popFirst() {
            guard flag.hasPrefix("--"), seen.insert(flag).inserted else { return false }
            let name = String(flag.dropFirst(2))
            guard let option = options.first(where: { $0.name == name }) else { return false }
            if option.values.isEmpty { continue }
            guard let value = rest.popFirst(), !value.hasPrefix("-") else { return false }
        }
        return seen.isSuperset(of: ["--" + Name.service, "--" + Name.account])
    }

    @Test("every list of the options, and each declined thing at each place: the reader and the parser agree")
    func agree() throws {
        let lists = Self.built + Self.declined
        var accepted = 0, handedOver = 0
        for arguments in lists {
            let reader = PlainTokenCall(arguments[...])
            let token = (try? TokenCtl.parseAsRoot(arguments)) as? TokenCtl.Token
            if let reader {
                accepted += 1
                let token = try #require(token, "the reader accepts \(arguments), which the parser does not read as token")
                #expect(token.item.service == reader.service, "\(arguments)")
                #expect(token.item.accountOption == reader.account, "\(arguments)")
                #expect(token.keyringOptions.keyring.configuration == reader.keyring.configuration, "\(arguments)")
            } else {
                handedOver += 1
                #expect(token == nil || !Self.isInGrammar(arguments), "the reader declines \(arguments), which it could read")
            }
        }
        // Both sides were met often: the lists are not all of one kind.
        #expect(accepted > 100 && handedOver > 500, "\(accepted) accepted, \(handedOver) handed over")
    }

    @Test("the defaults are the parser's: 5 s, prompting allowed")
    func defaults() throws {
        let reader = try #require(PlainTokenCall(["token", "--service", "S", "--account", "A"]))
        let token = try #require(try TokenCtl.parseAsRoot(["token", "--service", "S", "--account", "A"]) as? TokenCtl.Token)
        #expect(reader.keyring.configuration.timeout == .seconds(CommandLineOptions.defaultTimeout))
        #expect(reader.keyring.configuration == token.keyringOptions.keyring.configuration)
        #expect(reader.keyring.configuration.prompting == .allowed)
    }
}
