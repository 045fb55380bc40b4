package dev.baton.internal.engine;

import static dev.baton.internal.engine.SteppedEngine.LINGER;
import static dev.baton.internal.engine.SteppedEngine.granted;
import static dev.baton.internal.engine.SteppedEngine.held;
import static dev.baton.internal.engine.SteppedEngine.keys;
import static dev.baton.internal.engine.SteppedEngine.unreachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonListener;
import dev.baton.BatonUnavailableException;
import dev.baton.Lease;
import dev.baton.internal.engine.AcquireAttempt.State;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.transport.FakeTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The attempt's state machine, stepped reply by reply and timer by timer on a fake transport and a fake clock: when
 * it tries, when it sleeps, what wakes it, and that however it ends it leaves nothing behind.
 */
class AcquireAttemptTest {
    private static final String CHANNEL = keys("orders").channel();

    private SteppedEngine baton = new SteppedEngine();

    @AfterEach
    void close() {
        baton.close();
    }

    @Test
    void aFreeLockIsGrantedAtTheFirstTryWithoutSubscribing() {
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofSeconds(10));

        FakeTransport.Call acquire = baton.redis.next(LockCalls.ACQUIRE);
        assertThat(acquire.keys).containsExactly(keys("orders").lock(), keys("orders").counter());
        assertThat(acquire.args.get(1)).as("lease").isEqualTo("30000");
        assertThat(acquire.args.get(4)).as("held token: not a re-entry").isEqualTo("0");
        assertThat(acquire.args.get(5)).as("marks the lock as waited for, since the caller would wait").isEqualTo("1");
        assertThat(attempt.state()).isEqualTo(State.FIRST_TRY);

        acquire.reply(granted(7));

        assertThat(attempt.state()).isEqualTo(State.ACQUIRED);
        assertThat(attempt.result.join().token).isEqualTo(7);
        assertThat(baton.redis.subscribed()).isEmpty();
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
        assertThat(baton.scheduler.pendingTasks()).as("the watchdog's round only: the deadline timer is gone")
                .isEqualTo(1);
    }

    @Test
    void aBusyLockIsWaitedForAfterSubscribingAndTakenWhenAReleaseWakesTheWaiter() {
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofSeconds(10));
        baton.redis.holdSubscriptions();

        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));
        assertThat(attempt.state()).as("registered, waiting for Redis to confirm").isEqualTo(State.SUBSCRIBING);
        assertThat(baton.redis.unanswered()).as("no try before the subscription is confirmed").isEmpty();

        baton.redis.confirmSubscription(CHANNEL);
        assertThat(attempt.state()).as("the re-check after subscribing").isEqualTo(State.TRYING);
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));
        assertThat(attempt.state()).isEqualTo(State.SLEEPING);
        assertThat(attempt.sleepsOnHeldLock()).isTrue();

        baton.advance(Duration.ofMillis(999));
        assertThat(baton.redis.unanswered()).as("asleep until the re-check interval").isEmpty();

        baton.redis.publish(CHANNEL);
        assertThat(attempt.state()).isEqualTo(State.WOKEN);
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(8));

        assertThat(attempt.result.join().token).isEqualTo(8);
        assertThat(baton.redis.calls(LockCalls.ACQUIRE)).hasSize(3);
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
        baton.advance(LINGER);
        assertThat(baton.redis.subscribed()).as("unsubscribed once the linger passed").isEmpty();
    }

    @Test
    void aSleepingWaiterTriesAgainAfterTheRecheckIntervalOrTheHoldersLeaseWhicheverIsFirst() {
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofSeconds(10));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000)); // subscribed at once, then the re-check try
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));

        baton.advance(Duration.ofMillis(999));
        assertThat(baton.redis.unanswered()).isEmpty();
        baton.advance(Duration.ofMillis(1));
        assertThat(attempt.state()).isEqualTo(State.TRYING);
        baton.redis.next(LockCalls.ACQUIRE).reply(held(200));

        baton.advance(Duration.ofMillis(200));
        assertThat(baton.redis.unanswered()).as("the holder's lease has 1 ms to go").isEmpty();
        baton.advance(Duration.ofMillis(1));
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(3));
        assertThat(attempt.result.join().token).isEqualTo(3);
    }

    @Test
    void aWaitRunsOutExactlyAtItsDeadlineAndLeavesNothingBehind() {
        baton.redis.answer(LockCalls.ACQUIRE, call -> held(60_000));
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofMillis(2_500));

        baton.advance(Duration.ofMillis(2_499));
        assertThat(attempt.result).isNotDone();
        assertThat(baton.redis.calls(LockCalls.ACQUIRE)).as("first try, re-check after subscribing, at 1 s, at 2 s")
                .hasSize(4);

        baton.advance(Duration.ofMillis(1));
        assertThat(attempt.state()).isEqualTo(State.TIMED_OUT);
        assertThat(attempt.result.join()).isNull();
        assertThat(baton.redis.calls(LockCalls.ACQUIRE)).as("no try at the deadline itself").hasSize(4);
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
        baton.advance(LINGER);
        assertThat(baton.redis.subscribed()).isEmpty();
        assertThat(baton.scheduler.pendingTasks()).as("the watchdog's round only").isEqualTo(1);
    }

    @Test
    void aReplyThatComesAfterTheDeadlineEndsTheWait() {
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofMillis(500));
        FakeTransport.Call slow = baton.redis.next(LockCalls.ACQUIRE);

        baton.advance(Duration.ofMillis(500));
        assertThat(attempt.result.join()).isNull();

        slow.reply(held(1_000));
        assertThat(attempt.state()).isEqualTo(State.TIMED_OUT);
        assertThat(baton.redis.subscribed()).as("a late 'held' does not subscribe").isEmpty();
    }

    @Test
    void aSingleTryThatFindsTheLockHeldReturnsAtOnceWithoutWaiting() {
        AcquireAttempt attempt = baton.attempt("orders", Duration.ZERO);
        FakeTransport.Call acquire = baton.redis.next(LockCalls.ACQUIRE);
        assertThat(acquire.args.get(5)).as("a single try does not mark the lock as waited for").isEqualTo("0");

        acquire.reply(held(1_000));

        assertThat(attempt.result.join()).isNull();
        assertThat(baton.redis.subscribed()).isEmpty();
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
    }

    @Test
    void onlyTheEldestLocalWaiterReChecksAndTheNextTakesOverWhenItLeaves() {
        baton.close();
        baton = new SteppedEngine(b -> b.fairnessThreshold(Duration.ZERO)); // no claims: re-checks alone
        baton.redis.answer(LockCalls.ACQUIRE, call -> held(60_000));
        List<AcquireAttempt> waiters = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            waiters.add(baton.attempt("orders", Duration.ofMinutes(5)));
        }
        assertThat(waiters).allSatisfy(w -> assertThat(w.state()).isIn(State.SLEEPING, State.QUEUED));
        int before = baton.redis.calls(LockCalls.ACQUIRE).size();

        advanceInSteps(Duration.ofSeconds(10));

        // One try per re-check interval answers for all 50 (without the eldest's lead: 500).
        assertThat(baton.redis.calls(LockCalls.ACQUIRE).size() - before).isBetween(10, 11);

        waiters.get(0).cancel();
        int afterEldest = baton.redis.calls(LockCalls.ACQUIRE).size();
        advanceInSteps(Duration.ofSeconds(10));
        assertThat(baton.redis.calls(LockCalls.ACQUIRE).size() - afterEldest)
                .as("the next eldest re-checks from now on, once an interval").isBetween(9, 11);
        assertThat(waiters.subList(1, 50)).allSatisfy(w -> assertThat(w.state()).isIn(State.SLEEPING, State.QUEUED));
    }

    /**
     * A try and the abandon of the attempt's end, started at once from two threads: the try goes out before the
     * abandon or not at all. (The plain lock sends an abandon only when the end may have to cover a try.) A try sent after its attempt's abandon would leave a waiter queued in Redis that nobody
     * withdraws (a semaphore's release once handed such a dead waiter its permits for a whole lease).
     */
    @Test
    void aTryRacingTheEndOfItsAttemptNeverGoesOutAfterTheAbandon() throws Exception {
        ExecutorService racers = Executors.newFixedThreadPool(2);
        int abandons = 0;
        try {
            for (int i = 0; i < 300; i++) {
                String name = "race-" + i;
                AcquireAttempt attempt = baton.attempt(name, Duration.ofMinutes(5));
                replyToOpenTry(name, held(60_000)); // the first try
                replyToOpenTry(name, held(60_000)); // the try after subscribing
                assertThat(attempt.state()).isEqualTo(State.SLEEPING);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<?> wake = racers.submit(() -> {
                    start.await();
                    return attempt.wake(ReleaseNotifications.RELEASED);
                });
                Future<?> cancel = racers.submit(() -> {
                    start.await();
                    return attempt.cancel();
                });
                wake.get(10, TimeUnit.SECONDS);
                cancel.get(10, TimeUnit.SECONDS);
                List<FakeTransport.Call> calls = baton.redis.calls().stream()
                        .filter(c -> c.keys.contains(keys(name).lock())).toList();
                int abandon = -1;
                for (int k = 0; k < calls.size(); k++) {
                    if (calls.get(k).script == LockCalls.ABANDON) {
                        abandon = k;
                    }
                }
                if (abandon < 0) {
                    continue; // the end came first, from SLEEPING: no try, so nothing to abandon
                }
                abandons++;
                assertThat(calls.subList(abandon, calls.size()))
                        .as("round %d: nothing of the attempt after its abandon", i)
                        .noneMatch(c -> c.script == LockCalls.ACQUIRE);
            }
            assertThat(abandons).as("rounds in which the end met a try it had to cover").isPositive();
        } finally {
            racers.shutdownNow();
        }
    }

    private void replyToOpenTry(String name, Object reply) {
        baton.redis.unanswered().stream()
                .filter(c -> c.script == LockCalls.ACQUIRE && c.keys.contains(keys(name).lock()))
                .findFirst().orElseThrow().reply(reply);
    }

    private void advanceInSteps(Duration total) {
        for (long ms = 0; ms < total.toMillis(); ms += 50) {
            baton.advance(Duration.ofMillis(50));
        }
    }

    @Test
    void cancellingASleepingWaiterRemovesItAndItsTimers() {
        AcquireAttempt attempt = asleep("orders");

        CompletableFuture<Void> settled = attempt.cancel();

        assertThat(settled).isDone();
        assertThat(attempt.state()).isEqualTo(State.CANCELLED);
        assertThatThrownBy(attempt.result::join).isInstanceOf(CancellationException.class);
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
        baton.advance(Duration.ofSeconds(5));
        assertThat(baton.redis.unanswered()).as("no re-check after the end").isEmpty();
        assertThat(baton.redis.subscribed()).isEmpty();
        assertThat(baton.scheduler.pendingTasks()).isEqualTo(1);
    }

    @Test
    void cancellingTheLeaseFutureOfAnAsynchronousAcquisitionEndsTheWait() {
        CompletableFuture<Lease> lease = baton.primitives.lock("orders").acquireAsync(Duration.ofSeconds(10));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000));
        assertThat(baton.engine.bookkeeping().sleepingWaiters()).isEqualTo(1);

        lease.cancel(true);

        assertThat(baton.engine.bookkeeping().waiters()).isZero();
        baton.advance(Duration.ofSeconds(5));
        assertThat(baton.redis.unanswered()).isEmpty();
    }

    @Test
    void aGrantThatArrivesAfterTheCallerGaveUpIsReleasedAgainByItsToken() {
        AcquireAttempt attempt = asleep("orders");
        baton.advance(Duration.ofSeconds(1));
        FakeTransport.Call inFlight = baton.redis.next(LockCalls.ACQUIRE);

        CompletableFuture<Void> settled = attempt.cancel();
        assertThat(settled).as("settles only once the try in flight came back").isNotDone();

        inFlight.reply(granted(9));
        FakeTransport.Call release = baton.redis.next(LockCalls.RELEASE);
        assertThat(release.args.subList(0, 2)).containsExactly(inFlight.args.get(0), "9");
        assertThat(settled).isNotDone();
        release.reply(0L);

        assertThat(settled).isDone();
        assertThat(attempt.state()).isEqualTo(State.CANCELLED);
        LockEngine.Bookkeeping left = baton.engine.bookkeeping();
        assertThat(left.localHolders() + left.renewedHolds() + left.waiters()).isZero();
    }

    @Test
    void aRedisErrorOnATryFailsTheWaitAndUnregistersTheWaiter() {
        AcquireAttempt attempt = asleep("orders");
        baton.advance(Duration.ofSeconds(1));

        baton.redis.next(LockCalls.ACQUIRE).fail(unreachable());

        assertThat(attempt.state()).isEqualTo(State.FAILED);
        assertThatThrownBy(attempt.result::get).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(BatonUnavailableException.class);
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
    }

    @Test
    void anOutageFailsASleepingWaiterAtItsNextRecheck() {
        AcquireAttempt attempt = asleep("orders");
        baton.redis.outage(unreachable());

        baton.advance(Duration.ofMillis(999));
        assertThat(attempt.result).isNotDone();
        baton.advance(Duration.ofMillis(1));

        assertThat(attempt.state()).isEqualTo(State.FAILED);
        assertThatThrownBy(attempt.result::get).hasCauseInstanceOf(BatonUnavailableException.class);
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
    }

    @Test
    void aSubscriptionThatFailsFailsTheWait() {
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofSeconds(10));
        FakeTransport.Call first = baton.redis.next(LockCalls.ACQUIRE);
        baton.redis.outage(unreachable());

        first.reply(held(5_000));

        assertThat(attempt.state()).isEqualTo(State.FAILED);
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
    }

    @Test
    void aReleaseThatArrivesWhileATryIsInFlightIsNotSleptThrough() {
        AcquireAttempt attempt = asleep("orders");
        baton.advance(Duration.ofSeconds(1));
        FakeTransport.Call inFlight = baton.redis.next(LockCalls.ACQUIRE);

        baton.redis.publish(CHANNEL); // nobody asleep to wake, but the channel's epoch moves
        inFlight.reply(held(5_000));

        assertThat(attempt.state()).as("tries again at once instead of sleeping").isEqualTo(State.TRYING);
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(4));
        assertThat(attempt.result.join().token).isEqualTo(4);
    }

    @Test
    void aWokenWaiterThatGivesUpPassesTheWakeUpToTheNext() {
        AcquireAttempt first = asleep("orders");
        AcquireAttempt second = baton.attempt("orders", Duration.ofSeconds(10));
        assertThat(second.state()).as("queued behind the sleeping waiter, no try").isEqualTo(State.QUEUED);
        assertThat(baton.redis.unanswered()).isEmpty();

        baton.redis.publish(CHANNEL);
        assertThat(first.state()).isEqualTo(State.WOKEN);
        assertThat(second.state()).as("one release wakes one waiter").isEqualTo(State.QUEUED);
        FakeTransport.Call firstTry = baton.redis.next(LockCalls.ACQUIRE);

        first.cancel();
        baton.scheduler.runDue();

        assertThat(second.state()).isEqualTo(State.WOKEN);
        firstTry.reply(granted(5)); // the abandoned try won after all: released again
        baton.redis.next(LockCalls.RELEASE).reply(0L);
        baton.redis.next(LockCalls.ACQUIRE).reply(granted(6));
        assertThat(second.result.join().token).isEqualTo(6);
    }

    @Test
    void aWokenWaiterWhoseTryFindsTheLockHeldAgainHasNoWakeUpToPassOn() {
        AcquireAttempt first = asleep("orders");
        AcquireAttempt second = baton.attempt("orders", Duration.ofSeconds(10));
        baton.redis.publish(CHANNEL);
        baton.redis.next(LockCalls.ACQUIRE).reply(held(5_000)); // someone else took that release

        assertThat(first.state()).isEqualTo(State.SLEEPING);
        first.cancel();
        baton.scheduler.runDue();

        assertThat(second.state()).isEqualTo(State.QUEUED);
        assertThat(baton.redis.unanswered()).isEmpty();
    }

    @Test
    void anInterruptedBlockingWaitEndsTheAttemptAndRemovesTheWaiter() throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                baton.primitives.lock("orders").tryLock(Duration.ofSeconds(10));
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        caller.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> baton.redis.unanswered().size() == 1);
        baton.redis.next(LockCalls.ACQUIRE).reply(held(60_000));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(60_000));
        assertThat(baton.engine.bookkeeping().sleepingWaiters()).isEqualTo(1);

        caller.interrupt();

        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(baton.engine.bookkeeping().waiters()).isZero();
        baton.advance(Duration.ofSeconds(5));
        assertThat(baton.redis.unanswered()).as("no try after the interrupt").isEmpty();
    }

    @Test
    void closingTheBatonFailsEveryWait() {
        AcquireAttempt attempt = asleep("orders");

        baton.runtime.close();

        assertThat(attempt.state()).isEqualTo(State.FAILED);
        assertThatThrownBy(attempt.result::get).hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(baton.redis.isClosed()).isTrue();
    }

    @Test
    void theWaitReportedToTheListenerIsMeasuredOnTheRuntimesTicker() {
        List<BatonListener.LockAcquired> acquired = new CopyOnWriteArrayList<>();
        baton.close();
        baton = SteppedEngine.withListener(new BatonListener() {
            @Override
            public void lockAcquired(LockAcquired event) {
                acquired.add(event);
            }
        });
        AcquireAttempt attempt = baton.attempt("orders", Duration.ofSeconds(10));
        FakeTransport.Call slow = baton.redis.next(LockCalls.ACQUIRE);
        baton.advance(Duration.ofMillis(2_250));
        slow.reply(granted(11));

        assertThat(attempt.result.join().token).isEqualTo(11);
        await().atMost(Duration.ofSeconds(10)).until(() -> !acquired.isEmpty()); // events have a thread of their own
        assertThat(acquired.get(0).waited()).isEqualTo(Duration.ofMillis(2_250));
    }

    /** An attempt asleep on a lock someone else holds: its first try and the re-check after subscribing failed. */
    private AcquireAttempt asleep(String name) {
        AcquireAttempt attempt = baton.attempt(name, Duration.ofSeconds(10));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(60_000));
        baton.redis.next(LockCalls.ACQUIRE).reply(held(60_000));
        assertThat(attempt.state()).isEqualTo(State.SLEEPING);
        return attempt;
    }
}
