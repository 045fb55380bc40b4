package dev.baton.internal.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Replies of three masters completed by hand, in any order: an outcome as soon as the deciding function gives one,
 * later replies to the late handler, and a failed outcome if every master answered and nothing was decided.
 */
class QuorumTallyTest {
    private final List<CompletableFuture<String>> calls = List.of(new CompletableFuture<>(),
            new CompletableFuture<>(), new CompletableFuture<>());
    private final List<Map.Entry<Integer, String>> late = new CopyOnWriteArrayList<>();
    /** What the deciding function saw each time it was called. */
    private final List<String> seen = new ArrayList<>();

    /** Decides "granted" on two "yes", "refused" once two cannot be reached. */
    private final Function<QuorumTally<String>, String> majority = tally -> {
        int yes = 0;
        for (int i = 0; i < tally.masters(); i++) {
            if ("yes".equals(tally.reply(i))) {
                yes++;
            }
        }
        seen.add(yes + " yes of " + tally.answered());
        return yes >= 2 ? "granted" : yes + tally.pending() < 2 ? "refused" : null;
    };

    @Test
    void decidesAsSoonAsTheFunctionSaysSoAndPassesLaterRepliesToTheLateHandler() {
        CompletableFuture<String> outcome = gather(majority);
        calls.get(2).complete("yes");
        assertThat(outcome).isNotDone();
        calls.get(0).complete("yes");
        assertThat(outcome).isCompletedWithValue("granted");
        assertThat(seen).containsExactly("1 yes of 1", "2 yes of 2");

        calls.get(1).complete("no");
        assertThat(seen).as("never asked again once decided").hasSize(2);
        assertThat(late).containsExactly(Map.entry(1, "no"));
        assertThat(outcome).isCompletedWithValue("granted");
    }

    @Test
    void aLateFailureReachesTheLateHandlerAsNull() {
        List<Integer> lateIndexes = new CopyOnWriteArrayList<>();
        List<String> lateReplies = new CopyOnWriteArrayList<>();
        CompletableFuture<String> outcome = QuorumTally.gather(calls, majority, (i, reply) -> {
            lateIndexes.add(i);
            lateReplies.add(reply);
        });
        calls.get(0).complete("no");
        calls.get(1).complete("no");
        assertThat(outcome).as("two no of three: no majority can form").isCompletedWithValue("refused");

        calls.get(2).completeExceptionally(new IllegalStateException("timed out"));
        assertThat(lateIndexes).containsExactly(2);
        assertThat(lateReplies).containsExactly((String) null);
    }

    @Test
    void aDecisionOnTheLastReplyLeavesNothingLate() {
        CompletableFuture<String> outcome = gather(majority);
        calls.get(0).complete("yes");
        calls.get(1).complete("no");
        assertThat(outcome).isNotDone();
        calls.get(2).complete("yes");
        assertThat(outcome).isCompletedWithValue("granted");
        assertThat(late).isEmpty();
    }

    @Test
    void failuresCountTowardsADecisionLikeRefusals() {
        CompletableFuture<String> outcome = gather(majority);
        calls.get(1).completeExceptionally(new IllegalStateException("connection refused"));
        assertThat(outcome).isNotDone();
        calls.get(0).completeExceptionally(new IllegalStateException("timed out"));
        assertThat(outcome).isCompletedWithValue("refused");
        calls.get(2).complete("yes");
        assertThat(late).containsExactly(Map.entry(2, "yes"));
    }

    @Test
    void anUndecidedFunctionAfterEveryReplyFailsTheOutcome() {
        List<Integer> called = new ArrayList<>();
        CompletableFuture<String> outcome = gather(tally -> {
            called.add(tally.answered());
            return null;
        });
        calls.get(0).complete("yes");
        calls.get(1).completeExceptionally(new IllegalStateException("down"));
        assertThat(outcome).isNotDone();
        calls.get(2).complete("no");
        assertThat(outcome).isCompletedExceptionally();
        assertThatThrownBy(outcome::join).isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(IllegalStateException.class).hasMessage("no outcome after every reply");
        assertThat(called).as("asked after each reply").containsExactly(1, 2, 3);
        assertThat(late).isEmpty();
    }

    @Test
    void theTallyCountsAnswersPendingFailuresAndKeepsEachMastersReply() {
        IllegalStateException down = new IllegalStateException("down");
        IllegalStateException timedOut = new IllegalStateException("timed out");
        List<String> views = new ArrayList<>();
        List<QuorumTally<String>> tallies = new ArrayList<>(); // one tally, the same each time
        gather(tally -> {
            tallies.add(tally);
            views.add(tally.masters() + " masters, answered " + tally.answered() + ", pending " + tally.pending()
                    + ", failed " + tally.failed() + ", replies " + tally.reply(0) + "/" + tally.reply(1) + "/"
                    + tally.reply(2) + ", replied " + tally.replied(0) + "/" + tally.replied(1) + "/"
                    + tally.replied(2));
            return null;
        });
        calls.get(1).complete("b");
        QuorumTally<String> tally = tallies.get(0);
        assertThat(tally.firstFailure()).isNull();
        assertThat(tally.failure(1)).isNull();
        calls.get(2).completeExceptionally(down);
        assertThat(tally.failure(2)).isSameAs(down);
        assertThat(tally.firstFailure()).isSameAs(down);
        calls.get(0).completeExceptionally(timedOut);

        assertThat(views).containsExactly(
                "3 masters, answered 1, pending 2, failed 0, replies null/b/null, replied false/true/false",
                "3 masters, answered 2, pending 1, failed 1, replies null/b/null, replied false/true/false",
                "3 masters, answered 3, pending 0, failed 2, replies null/b/null, replied false/true/false");
        assertThat(tallies).hasSize(3).allSatisfy(t -> assertThat(t).isSameAs(tally));
        assertThat(tally.failure(0)).isSameAs(timedOut);
        assertThat(tally.failure(1)).isNull();
        assertThat(tally.failure(2)).isSameAs(down);
        assertThat(tally.firstFailure()).isIn(timedOut, down);
    }

    @Test
    void aNullReplyIsAnAnswerNotAFailure() {
        CompletableFuture<String> outcome = gather(tally -> tally.answered() == 1
                ? tally.replied(0) + " " + tally.reply(0) + " " + tally.failed() : null);
        calls.get(0).complete(null);
        assertThat(outcome).isCompletedWithValue("true null 0");
    }

    @Test
    void repliesThatArrivedBeforeTheGatheringAreCountedAtOnce() {
        calls.get(0).complete("yes");
        calls.get(1).complete("yes");
        CompletableFuture<String> outcome = gather(majority);
        assertThat(outcome).isCompletedWithValue("granted");
        calls.get(2).complete("no");
        assertThat(late).containsExactly(Map.entry(2, "no"));
    }

    @Test
    void withoutALateHandlerLateRepliesAreDropped() {
        CompletableFuture<String> outcome = QuorumTally.gather(calls, majority, null);
        calls.get(0).complete("yes");
        calls.get(1).complete("yes");
        calls.get(2).complete("no");
        calls.get(2).join(); // completing it ran the tally's callback without throwing into the call's chain
        assertThat(outcome).isCompletedWithValue("granted");
        assertThat(seen).hasSize(2);
    }

    @Test
    void theOutcomeDoesNotWaitForASlowMaster() {
        CompletableFuture<String> outcome = gather(majority);
        calls.get(0).complete("no");
        calls.get(1).complete("no");
        assertThat(outcome.thenApply(String::toUpperCase)).isCompletedWithValue("REFUSED");
        assertThat(calls.get(2)).as("the slow master has not answered").isNotDone();
        assertThat(outcome.isCompletedExceptionally()).isFalse();
    }

    private CompletableFuture<String> gather(Function<QuorumTally<String>, String> decide) {
        return QuorumTally.gather(calls, decide, (i, reply) -> late.add(new AbstractMap.SimpleImmutableEntry<>(i,
                reply)));
    }
}
