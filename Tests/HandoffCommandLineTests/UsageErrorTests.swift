import HandoffCommandLine
import Testing

@Suite struct UsageErrorTests {
    @Test func unknownOptionSuggestsTheNearestOne() {
        let error = Fixture.usageError("shapes", "list", "--jsn")
        #expect(error?.code == .unknownOption)
        #expect(error?.message == "unknown option '--jsn'; did you mean '--json'?")
        #expect(error?.helpHint == "See 'tool shapes list --help'.")
    }

    @Test func unknownOptionWithoutAPlausibleGuessSaysOnlyThat() {
        #expect(Fixture.usageError("shapes", "list", "--xylophone")?.message == "unknown option '--xylophone'")
        #expect(Fixture.usageError("shapes", "list", "-q")?.message == "unknown option '-q'")
    }

    @Test func missingValueAtTheEndOrBeforeAnotherOption() {
        let atEnd = Fixture.usageError("shapes", "draw", "paper", "--count")
        #expect(atEnd?.code == .missingValue)
        #expect(atEnd?.message == "option '--count' needs a value <n>")
        #expect(Fixture.usageError("shapes", "draw", "--count", "--json", "paper")?.code == .missingValue)
    }

    @Test func badValuesNameTheOptionAndWhatIsExpected() {
        #expect(Fixture.usageError("shapes", "draw", "--count", "many", "paper")?.message
            == "invalid value 'many' for '--count': expected an integer")
        #expect(Fixture.usageError("shapes", "draw", "--shape", "blob", "paper")?.message
            == "invalid value 'blob' for '--shape': expected one of circle, square")
        #expect(Fixture.usageError("shapes", "draw", "--ratio", "nan", "paper")?.code == .invalidValue)
        #expect(Fixture.usageError("shapes", "draw", "paper", "x")?.message
            == "invalid value 'x' for <extra>: expected an integer")
    }

    @Test func flagsRefuseAttachedValues() {
        #expect(Fixture.usageError("shapes", "list", "--json=yes")?.message == "flag '--json' does not take a value")
    }

    @Test func argumentsMustBePresentAndNotTooMany() {
        let missing = Fixture.usageError("shapes", "draw")
        #expect(missing?.code == .missingArgument)
        #expect(missing?.message == "missing argument <target>")
        #expect(Fixture.usageError("shapes", "draw", "paper", "1", "2")?.message == "unexpected argument '2'")
        #expect(Fixture.usageError("status", "now")?.code == .unexpectedArgument)
    }

    @Test func subcommandsMustExistAndBeGiven() {
        #expect(Fixture.usageError("shapse")?.message == "unknown command 'shapse' for 'tool'; did you mean 'shapes'?")
        #expect(Fixture.usageError("zzz")?.message == "unknown command 'zzz' for 'tool'; commands are: shapes, status")
        let missing = Fixture.usageError("shapes")
        #expect(missing?.code == .missingSubcommand)
        #expect(missing?.message == "'tool shapes' needs a command: draw, list")
        #expect(Fixture.usageError()?.code == .missingSubcommand)
    }
}
