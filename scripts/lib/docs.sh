# Shared by scripts/test and scripts/manual: the DocC catalogs and tokenctl's man page. Source it; do not run it.
# Needs `repo` set and `say` from common.sh. Both use the debug build that `swift build` left in .build, and write
# only below .build (the plugins' work directories).

# The targets with a DocC catalog (Sources/NAME/NAME.docc).
TOKENKEYRING_DOC_TARGETS=(TokenKeyring Keyring TokenAuth TokenAuthURLSession TokenAuthSignIn TokenAuthKeyring TokenAuthFileStore TokenAuthGLib)

# Builds every catalog with swift-docc-plugin, warnings as errors: an unresolved symbol link, a missing snippet or
# slice, an article not curated anywhere fails. The snippets themselves are compiled by `swift build` (Snippets/).
check_documentation() {
    say "Building the documentation (DocC, warnings as errors)…"
    local targets=() target
    for target in "${TOKENKEYRING_DOC_TARGETS[@]}"; do targets+=(--target "$target"); done
    swift package generate-documentation "${targets[@]}" --warnings-as-errors >&2
}

# The man page as swift-argument-parser's generate-manual plugin makes it from tokenctl's parser, dated DATE
# (yyyy-mm-dd), on standard output.
generated_manual() {
    local date=$1
    swift package plugin generate-manual --configuration debug --date "$date" >&2
    # The parser lives in tokenctl-full (tokenctl itself reads only the plain `token` call), under tokenctl's name.
    cat "$repo/.build/plugins/GenerateManual/outputs/tokenctl-full/tokenctl.1"
}

# The committed man page, regenerated with the date it carries, must be unchanged: a subcommand's help that changed
# without `scripts/manual` fails here.
check_manual() {
    say "Checking that docs/man/tokenctl.1 is what tokenctl's parser generates…"
    local committed="$repo/docs/man/tokenctl.1" date generated
    date=$(committed_manual_date "$committed")
    generated=$(mktemp "${TMPDIR:-/tmp}/tokenctl.1.XXXXXX")
    generated_manual "$date" >"$generated"
    if ! diff -u "$committed" "$generated" >&2; then
        rm -f "$generated"
        say "docs/man/tokenctl.1 is out of date with tokenctl's help: run scripts/manual and commit the page."
        return 1
    fi
    rm -f "$generated"
}

# The date of a man page (its `.Dd Month D, YYYY` line) as yyyy-mm-dd.
committed_manual_date() {
    local line
    line=$(sed -n 's/^\.Dd //p' "$1")
    LC_ALL=C date -u -d "$line" +%F
}
