package dev.baton.spring.aop;

import dev.baton.spring.DistributedLock;
import dev.baton.spring.LockContext;
import dev.baton.spring.LockKind;
import dev.baton.spring.WhenNotAcquired;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A bean with one {@code @DistributedLock} method per case under test; each reports the lock it ran under. */
public class LockedService {

    private final NestedService nested;

    public LockedService(NestedService nested) {
        this.nested = nested;
    }

    /** For {@code #root.target.tag}. */
    public String getTag() {
        return "tagged";
    }

    private static String current() {
        return LockContext.currentLease().orElseThrow().lockName();
    }

    /** Blocks until the test lets it go, so that the test can look at the lock meanwhile. */
    private static void block(CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        entered.countDown();
        if (!release.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never released the method");
        }
    }

    // ---- keys

    @DistributedLock(key = "'order:' + #orderId")
    public String byName(String orderId) {
        return current();
    }

    @DistributedLock(key = "'p:' + #p0 + ':' + #p1")
    public String byIndex(String first, int second) {
        return current();
    }

    @DistributedLock(key = "'a:' + #a1")
    public String byA(String first, String second) {
        return current();
    }

    @DistributedLock(key = "@lockKeys.prefix() + #id")
    public String byBean(String id) {
        return current();
    }

    @DistributedLock(key = "#root.target.tag + ':' + #id")
    public String byTarget(String id) {
        return current();
    }

    @DistributedLock(key = "#id")
    public String raw(String id) {
        return current();
    }

    // ---- kinds, each blocking until released, and each trying once

    @DistributedLock(key = "#name", kind = LockKind.MUTEX)
    public long holdMutex(String name, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        block(entered, release);
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", kind = LockKind.FAIR)
    public long holdFair(String name, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        block(entered, release);
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", kind = LockKind.READ)
    public long holdRead(String name, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        block(entered, release);
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", kind = LockKind.WRITE)
    public long holdWrite(String name, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        block(entered, release);
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", kind = LockKind.MUTEX, waitTime = "0")
    public long tryMutex(String name) {
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", kind = LockKind.FAIR, waitTime = "0")
    public long tryFair(String name) {
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", kind = LockKind.READ, waitTime = "0")
    public long tryRead(String name) {
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", kind = LockKind.WRITE, waitTime = "0")
    public long tryWrite(String name) {
        return LockContext.currentFencingToken();
    }

    // ---- waits and leases

    @DistributedLock(key = "#name", waitTime = "${test.short-wait:300ms}")
    public long shortWait(String name) {
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", waitTime = "30s")
    public long longWait(String name) {
        return LockContext.currentFencingToken();
    }

    @DistributedLock(key = "#name", leaseTime = "500ms")
    public boolean holdWithLease(String name, CountDownLatch entered, CountDownLatch release)
            throws InterruptedException {
        block(entered, release);
        return LockContext.currentLease().orElseThrow().isValid();
    }

    @DistributedLock(key = "#name", waitTime = "0", minHoldTime = "2s")
    public long quick(String name) {
        return LockContext.currentFencingToken();
    }

    // ---- when not acquired

    @DistributedLock(key = "'busy'", waitTime = "0")
    public String throwing() {
        return "ran";
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP,
            skipResult = "'skipped:' + #id")
    public String skipWithResult(String id) {
        return "ran";
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public void skipVoid(List<String> ran) {
        ran.add("ran");
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public int skipInt() {
        return 7;
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public long skipLong() {
        return 7;
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public double skipDouble() {
        return 7;
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public boolean skipBoolean() {
        return true;
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public String skipString() {
        return "ran";
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public Optional<String> skipOptional() {
        return Optional.of("ran");
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public List<String> skipList() {
        return List.of("ran");
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public Set<String> skipSet() {
        return Set.of("ran");
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public Map<String, String> skipMap() {
        return Map.of("ran", "ran");
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public Collection<String> skipCollection() {
        return List.of("ran");
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public Stream<String> skipStream() {
        return Stream.of("ran");
    }

    @DistributedLock(key = "'busy'", waitTime = "0", whenNotAcquired = WhenNotAcquired.SKIP)
    public String[] skipArray() {
        return new String[] {"ran"};
    }

    // ---- tokens and nesting

    @DistributedLock(key = "'tokens'")
    public long token() {
        return LockContext.currentFencingToken();
    }

    /** Runs {@link NestedService#inner} and {@link NestedService#same} inside its own lock; reports what it saw. */
    @DistributedLock(key = "'outer'")
    public List<String> outer() {
        long outerToken = LockContext.currentFencingToken();
        String inner = nested.inner();
        String afterInner = current() + "#" + (LockContext.currentFencingToken() == outerToken);
        String same = nested.same();
        return List.of(current(), inner, afterInner, same);
    }
}
