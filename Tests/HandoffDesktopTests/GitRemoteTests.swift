import HandoffDesktop
import Testing

@Suite struct GitRemoteTests {
    @Test(arguments: [
        "git@github.com:acme/handoff.git", "git@github.com:acme/handoff", "ssh://git@github.com/acme/handoff.git",
        "ssh://git@github.com:22/acme/handoff", "https://github.com/acme/handoff", "https://github.com/acme/handoff.git",
        "https://user@github.com/acme/handoff/", "https://user:token@GitHub.com/Acme/Handoff.git",
        "git+ssh://git@github.com/acme/handoff", "git://github.com/acme/handoff.git",
    ])
    func everySpellingOfOneRepositoryIsTheSame(_ url: String) throws {
        let remote = try #require(GitRemote(url))
        #expect(remote.key == "github.com/acme/handoff")
        #expect(remote.name == "handoff")
    }

    @Test func differentRepositoriesDiffer() {
        #expect(GitRemote("git@github.com:acme/handoff.git") != GitRemote("git@github.com:acme/handoff-site.git"))
        #expect(GitRemote("git@github.com:acme/handoff.git") != GitRemote("git@gitlab.com:acme/handoff.git"))
        #expect(GitRemote("https://git.example.org/group/sub/repo") == GitRemote("git@git.example.org:group/sub/repo.git"))
    }

    @Test func aPasswordIsNeverKept() throws {
        let remote = try #require(GitRemote("https://me:s3cret@github.com/acme/handoff.git"))
        #expect(remote.url == "https://me@github.com/acme/handoff.git")
        #expect(!remote.url.contains("s3cret"))
    }

    @Test func localRemotesAreTheirPath() {
        #expect(GitRemote("/srv/git/handoff.git")?.key == "/srv/git/handoff")
        #expect(GitRemote("file:///srv/git/handoff.git")?.key == "/srv/git/handoff")
        #expect(GitRemote("") == nil)
    }
}
