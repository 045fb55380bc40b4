package dev.baton.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The policy of the executor that completes users' futures: never on the thread that hands a completion over (in
 * Baton, Lettuce's event loop or the scheduler), never blocking it, a bounded number of threads, and no starvation
 * when callbacks wait for other completions.
 */
class CallbackExecutorTest {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final CallbackExecutor executor = new CallbackExecutor("test-callback", 2, 8);
    private final CountDownLatch gate = new CountDownLatch(1);

    @AfterEach
    void stop() {
        gate.countDown();
        executor.shutdown();
    }

    @Test
    void completionsRunOnTheExecutorsOwnThreadsNeverOnTheCaller() {
        Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
        AtomicInteger done = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            executor.execute(() -> {
                ranOn.add(Thread.currentThread());
                done.incrementAndGet();
            });
        }

        await().atMost(PATIENCE).until(() -> done.get() == 100);
        assertThat(ranOn).doesNotContain(Thread.currentThread())
                .allMatch(t -> t.getName().startsWith("test-callback-") && t.isDaemon());
    }

    @Test
    void callbacksSeeTheClassLoaderOfTheThreadThatBuiltTheExecutor() throws Exception {
        ClassLoader application = new ClassLoader(getClass().getClassLoader()) { };
        Thread current = Thread.currentThread();
        ClassLoader before = current.getContextClassLoader();
        CallbackExecutor built;
        current.setContextClassLoader(application);
        try {
            built = new CallbackExecutor("loader-callback", 2, 8);
        } finally {
            current.setContextClassLoader(before);
        }
        CompletableFuture<ClassLoader> seen = new CompletableFuture<>();
        try {
            built.execute(() -> seen.complete(Thread.currentThread().getContextClassLoader()));
            assertThat(seen.get(10, TimeUnit.SECONDS)).isSameAs(application);
        } finally {
            built.shutdown();
        }
    }

    @Test
    void aBusyExecutorQueuesCompletionsWithoutHoldingUpTheCallerAndRunsAtMostItsShareAtOnce() {
        AtomicInteger started = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            executor.execute(() -> {
                started.incrementAndGet();
                awaitGate(); // a callback that blocks on something that is not a future: no spare thread for it
            });
        }
        // Reaching this line means no execute() call waited for a thread.

        await().atMost(PATIENCE).during(Duration.ofMillis(300)).until(() -> started.get() == 2);
        assertThat(executor.threadCount()).isEqualTo(2);

        gate.countDown();
        await().atMost(PATIENCE).until(() -> started.get() == 20);
    }

    @Test
    void callbacksThatWaitForLaterCompletionsGetSpareThreadsInsteadOfStarvingThem() {
        List<CompletableFuture<Void>> later = new ArrayList<>();
        AtomicInteger finished = new AtomicInteger();
        for (int i = 0; i < 4; i++) { // twice as many as may run at once
            CompletableFuture<Void> f = new CompletableFuture<>();
            later.add(f);
            executor.execute(() -> {
                f.join();
                finished.incrementAndGet();
            });
        }
        later.forEach(f -> executor.execute(() -> f.complete(null)));

        await().atMost(PATIENCE).until(() -> finished.get() == 4);
    }

    @Test
    void spareThreadsTooAreBounded() {
        CompletableFuture<Void> never = new CompletableFuture<>();
        AtomicInteger waiting = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            executor.execute(() -> {
                waiting.incrementAndGet();
                never.join();
                finished.incrementAndGet();
            });
        }

        await().atMost(PATIENCE).until(() -> waiting.get() == 8);
        assertThat(executor.threadCount()).isLessThanOrEqualTo(8);

        never.complete(null);
        await().atMost(PATIENCE).until(() -> finished.get() == 20);
    }

    @Test
    void afterShutdownACompletionRunsOnTheCaller() {
        executor.shutdown();
        List<Thread> ranOn = new ArrayList<>();

        executor.execute(() -> ranOn.add(Thread.currentThread()));

        assertThat(ranOn).containsExactly(Thread.currentThread());
    }

    private void awaitGate() {
        try {
            gate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
