import Foundation
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// `continueActivity` says what happened through its own API: how far the payload has got and over which link,
/// as it goes, and the link that carried it in the outcome. Nothing above HandoffKit reads the frames for this.
struct ContinuationReportTests {
    /// A channel the source publishes, one it refuses, and no channel at all, with the path each must report.
    static let paths: [(ChannelAvailability?, LinkTransport.Kind, LinkTransport.Fallback?)] = [
        (.open(maximumSDU: 65535), .l2cap, nil),
        (.refused, .gatt, .refused),
        (nil, .gatt, nil),
    ]

    @Test(arguments: paths)
    func progressAndTransportAreReportedAsTheyHappen(channel: ChannelAvailability?, kind: LinkTransport.Kind,
                                                     fallback: LinkTransport.Fallback?) async throws {
        let ether = InMemoryEther()
        var conditions = LinkConditions()
        conditions.channel = channel
        await ether.setConditions(conditions)
        let (source, receiver, _) = try await makePair(ether: ether)
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["content": .string(String(repeating: "a line of a long note\n", count: 1_000))]
        let remote = try await offer(activity, from: source, to: receiver)

        let reports = Locked<[ContinuationProgress]>([])
        let outcome = await receiver.engine.continueActivity(remote) { report in reports.withLock { $0.append(report) } }

        guard case .continued(let continued, _, let transport) = outcome else {
            Issue.record("the continue ended with \(outcome)")
            return
        }
        #expect(continued.userInfo == activity.userInfo)
        #expect(transport.kind == kind)
        #expect(transport.fallback == fallback)
        let seen = reports.withLock { $0 }
        #expect(seen.count >= 2, "the OPEN and the last byte at least")
        #expect(seen.allSatisfy { $0.transport == transport })
        let total = try #require(seen.first?.totalBytes)
        #expect(total > 22_000)
        #expect(seen.allSatisfy { $0.totalBytes == total })
        // From nothing at the source's first answer to all of it, each report new and none going back.
        #expect(seen.first?.receivedBytes == 0)
        #expect(seen.last?.receivedBytes == total)
        let received = seen.map(\.receivedBytes)
        #expect(received == received.sorted() && Set(received).count == received.count)
    }

    @Test func aDeclinedContinueReportsNoPayloadProgress() async throws {
        let (source, receiver, _) = try await makePair()
        receiver.delegate.accept(only: [])
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let reports = Locked<[ContinuationProgress]>([])
        let outcome = await receiver.engine.continueActivity(remote) { report in reports.withLock { $0.append(report) } }
        guard case .declined = outcome else {
            Issue.record("the continue ended with \(outcome)")
            return
        }
        #expect(reports.withLock { $0 }.isEmpty)
    }
}
