package dev.baton.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.spring.DistributedLock;
import dev.baton.spring.LockContext;
import dev.baton.test.RedisExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * The lock works through JDK interface proxies as well as class proxies, and wraps {@code @Transactional}: the lock
 * is taken before the transaction begins and released after it commits.
 */
class ProxyCompositionIT {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    public interface Orders {
        String pay(String orderId);
    }

    public static class LockedOrders implements Orders {
        @Override
        @Transactional
        @DistributedLock(key = "'order:' + #orderId")
        public String pay(String orderId) {
            return LockContext.currentLease().orElseThrow().lockName();
        }
    }

    /** Records, at each step of a transaction, whether a lock was current on the thread. */
    static class RecordingTransactions extends AbstractPlatformTransactionManager {
        final List<String> steps = new ArrayList<>();

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            steps.add("begin, locked: " + LockContext.currentLease().isPresent());
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            steps.add("commit, locked: " + LockContext.currentLease().map(l -> l.isValid()).orElse(false));
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            steps.add("rollback");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableTransactionManagement
    @Import(TestBatonConfiguration.class)
    static class OrdersApp {
        @Bean
        Orders orders() {
            return new LockedOrders();
        }

        @Bean
        RecordingTransactions transactionManager() {
            return new RecordingTransactions();
        }
    }

    @Test
    void theLockWrapsTheTransactionWithClassProxies() {
        try (ConfigurableApplicationContext context = TestApps.start(OrdersApp.class, redis.server())) {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.getClass().getName()).contains("CGLIB");
            assertThat(orders.pay("7")).isEqualTo("order:7");
            assertThat(context.getBean(RecordingTransactions.class).steps)
                    .containsExactly("begin, locked: true", "commit, locked: true");
            assertThat(context.getBean(Baton.class).lock("order:7").isLocked()).isFalse();
        }
    }

    @Test
    void theLockWorksThroughInterfaceProxies() {
        try (ConfigurableApplicationContext context = TestApps.start(OrdersApp.class, redis.server(),
                "spring.aop.proxy-target-class=false")) {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.getClass().getName()).contains("Proxy");
            assertThat(orders.pay("8")).isEqualTo("order:8");
        }
    }
}
