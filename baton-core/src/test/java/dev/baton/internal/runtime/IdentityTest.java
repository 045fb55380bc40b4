package dev.baton.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The per-thread owner id and holder description, which Identity builds once per thread and reuses. */
class IdentityTest {

    @Test
    void aThreadKeepsItsOwnerAndAnotherThreadGetsAnother() throws Exception {
        Identity identity = new Identity();
        String owner = identity.threadOwner();
        assertThat(identity.threadOwner()).isEqualTo(owner)
                .isEqualTo(identity.instanceId() + ":t" + Thread.currentThread().getId());

        AtomicReference<String> other = new AtomicReference<>();
        Thread thread = new Thread(() -> other.set(identity.threadOwner()));
        thread.start();
        thread.join();
        assertThat(other.get()).isNotEqualTo(owner).startsWith(identity.instanceId() + ":t");
        assertThat(new Identity().threadOwner()).as("another instance").isNotEqualTo(owner);
    }

    @Test
    void theHolderFollowsARenameOfTheThread() throws Exception {
        Identity identity = new Identity();
        AtomicReference<String> before = new AtomicReference<>();
        AtomicReference<String> after = new AtomicReference<>();
        AtomicReference<String> ownerBefore = new AtomicReference<>();
        AtomicReference<String> ownerAfter = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            before.set(identity.holderOfCallingThread());
            ownerBefore.set(identity.threadOwner());
            Thread.currentThread().setName("renamed worker");
            after.set(identity.holderOfCallingThread());
            ownerAfter.set(identity.threadOwner());
        }, "first name");
        thread.start();
        thread.join();

        assertThat(before.get()).startsWith(identity.instanceId() + " " + ProcessHandle.current().pid() + " ")
                .endsWith(" first name");
        assertThat(after.get()).endsWith(" renamed worker");
        assertThat(ownerAfter.get()).as("the owner does not change with the name").isEqualTo(ownerBefore.get());
    }
}
