package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.support.TestBatons;
import dev.baton.test.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leases and thread-owned locks from virtual threads. Baton is compiled for Java 17, so virtual threads are reached
 * by reflection and this class runs on JDK 21 and later (CI's second run, on JDK 25).
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadsIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private int unguarded; // incremented only under the distributed lock

    @Test
    void leasesAcquiredOnVirtualThreadsAndReleasedOnOthers() throws Exception {
        ExecutorService virtual = virtualThreadPerTask();
        try (Baton baton = TestBatons.connect(redis.server().uri())) {
            List<CompletableFuture<Long>> tasks = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                tasks.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        Lease lease = baton.lock("vt").acquire(Duration.ofSeconds(60));
                        int seen = unguarded;
                        Thread.yield();
                        unguarded = seen + 1;
                        // hand the lease to another virtual thread to release
                        CompletableFuture.runAsync(lease::release, virtual).join();
                        return lease.fencingToken();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }, virtual));
            }
            CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(unguarded).isEqualTo(100);
            assertThat(tasks.stream().map(CompletableFuture::join).distinct()).hasSize(100);
            assertThat(baton.lock("vt").isLocked()).isFalse();
        } finally {
            virtual.shutdownNow();
        }
    }

    @Test
    void threadOwnedLocksTellVirtualThreadsApart() throws Exception {
        ExecutorService virtual = virtualThreadPerTask();
        try (Baton baton = TestBatons.connect(redis.server().uri())) {
            DistributedLock lock = baton.lock("vt-owned");
            assertThat(virtual.submit(() -> lock.tryLock()).get()).isTrue();
            assertThat(virtual.submit(() -> lock.tryLock()).get()).as("another virtual thread").isFalse();
            assertThat(lock.isLocked()).isTrue();
            lock.forceUnlock();
        } finally {
            virtual.shutdownNow();
        }
    }

    private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }
}
