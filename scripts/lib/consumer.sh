# Shared by scripts/test: the consumer package, Examples/Consumer — an app's package that depends on this checkout by
# path and compiles the README's and Getting Started's programs, TestingYourApp's recipe and every example of the
# `///` comments in Sources/, in Swift 6 mode with every warning an error. Source it; do not run it. Needs `repo` set
# and `say` from common.sh.
#
# The package is staged in .build/consumer, which persists between runs so that only what changed is rebuilt:
#
#   .build/consumer/TokenKeyring -> the checkout   (the manifest's `.package(path: "../TokenKeyring")`, as in the docs)
#   .build/consumer/Consumer/{Package.swift,Tests,Sources/*} -> Examples/Consumer/…
#   .build/consumer/Consumer/Sources/DocCommentExamples/Generated/   (scripts/lib/doc-examples.py)
#   .build/consumer/Consumer/Sources/GettingStartedLocal/main.swift  (Getting Started's program, its issuer from
#                                                                     GETTING_STARTED_ISSUER)
#
# A directory of links rather than Examples/Consumer itself: SwiftPM resolves a root package's path through links,
# so the manifest's `../TokenKeyring` must sit beside a real directory, and the generated files stay out of the tree.

TOKENKEYRING_CONSUMER="$repo/.build/consumer/Consumer"

# Makes or refreshes the staged package, and writes the doc comments' examples into it.
stage_consumer() {
    local stage=$repo/.build/consumer entry name
    mkdir -p "$TOKENKEYRING_CONSUMER/Sources/DocCommentExamples"
    ln -sfn ../.. "$stage/TokenKeyring"
    ln -sfn ../../../Examples/Consumer/Package.swift "$TOKENKEYRING_CONSUMER/Package.swift"
    ln -sfn ../../../Examples/Consumer/Tests "$TOKENKEYRING_CONSUMER/Tests"
    for entry in "$repo"/Examples/Consumer/Sources/*; do
        name=$(basename "$entry")
        [ "$name" = DocCommentExamples ] && continue
        ln -sfn "../../../../Examples/Consumer/Sources/$name" "$TOKENKEYRING_CONSUMER/Sources/$name"
    done
    ln -sfn ../../../../../Examples/Consumer/Sources/DocCommentExamples/Prelude.swift \
        "$TOKENKEYRING_CONSUMER/Sources/DocCommentExamples/Prelude.swift"
    python3 "$repo/scripts/lib/doc-examples.py" "$repo" "$TOKENKEYRING_CONSUMER/Sources/DocCommentExamples/Generated"
    # Getting Started's program as the docs show it, but for its issuer (written only when its text changed: a
    # rebuild of the consumer compiles only what changed).
    mkdir -p "$TOKENKEYRING_CONSUMER/Sources/GettingStartedLocal"
    python3 - "$repo/Snippets/GettingStarted.swift" "$TOKENKEYRING_CONSUMER/Sources/GettingStartedLocal/main.swift" <<'PY'
import pathlib
import sys

source = pathlib.Path(sys.argv[1]).read_text()
issuer = 'URL(string: "https://auth.example.com")!'
if source.count(issuer) != 1:
    sys.exit(f"{sys.argv[1]} names its issuer {issuer} not exactly once: update scripts/lib/consumer.sh")
local = 'URL(string: ProcessInfo.processInfo.environment["GETTING_STARTED_ISSUER"] ?? "https://auth.example.com")!'
text = source.replace(issuer, local)
target = pathlib.Path(sys.argv[2])
if not target.exists() or target.read_text() != text:
    target.write_text(text)
PY
}

# Builds the consumer and its tests (warnings are errors there), runs the recipe's tests, and checks that they link
# no libsecret: TestingYourApp promises that the doubles' tests build and run without it.
check_consumer() {
    say "Building the consumer package (Examples/Consumer: the README, Getting Started, TestingYourApp, doc comments)…"
    stage_consumer || return 1
    # The scratch path the fresh clone and the desktop app share (common.sh): the dependencies are compiled once.
    local consumer=(--package-path "$TOKENKEYRING_CONSUMER" --scratch-path "$(shared_scratch_path "$repo")")
    if ! swift build "${consumer[@]}" --build-tests >&2; then
        say "The consumer package does not build: a program or example of the docs above no longer compiles, or warns."
        return 1
    fi
    swift test "${consumer[@]}" --skip-build >&2 || return 1
    local bin tests app linked
    bin=$(swift build "${consumer[@]}" --show-bin-path) || return 1
    tests="$bin/ConsumerPackageTests.xctest"
    app="$bin/MyApp"
    # A control: the app links libsecret, so ldd shows it where it is linked. ldd's list is read whole first: piped
    # into `grep -q`, which stops at the first match, ldd could die of SIGPIPE, and pipefail failed the check at random.
    linked=$(ldd "$app") || return 1
    if ! grep -q 'libsecret-1\.so' <<<"$linked"; then
        say "ldd lists no libsecret for the consumer's MyApp: the check below would prove nothing."
        return 1
    fi
    if ldd "$tests" | grep -E 'lib(secret-1|glib-2\.0|gio-2\.0)\.so' >&2; then
        say "The recipe's tests (MyAppCoreTests) link the libraries above: TestingYourApp promises they need no libsecret."
        return 1
    fi
    "$repo/scripts/lib/getting-started-check" "$bin/GettingStartedLocal"
}
