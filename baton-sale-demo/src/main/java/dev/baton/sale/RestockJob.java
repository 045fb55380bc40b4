package dev.baton.sale;

import dev.baton.Baton;
import dev.baton.spring.DistributedLock;
import dev.baton.spring.LockContext;
import dev.baton.spring.WhenNotAcquired;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/**
 * The nightly restock: tops every catalogue item up to its full stock. Every instance of the fleet schedules it, and
 * the {@code restock} lock lets one of them run it per period: the others find the lock taken and skip. The lock is
 * held at least {@code sale.restock.min-hold} after the run started, so an instance whose clock or scheduler is a
 * little late still finds it taken, instead of running the same period's restock again.
 *
 * <p>Properties: {@code sale.restock.cron} (default {@code 0 0 3 * * *}) and {@code sale.restock.min-hold} (default
 * one minute; it must be shorter than the period).
 */
@Component
public class RestockJob {

    private static final Logger log = LoggerFactory.getLogger(RestockJob.class);

    private final SaleProperties properties;
    private final StockService stock;
    private final RestockLog restocks;
    private final String instance;
    private final Clock clock;

    /**
     * @param properties the catalogue
     * @param stock      the locked stock operations
     * @param restocks   where runs are recorded
     * @param baton      the application's Baton, whose instance id names this instance in the record
     */
    public RestockJob(SaleProperties properties, StockService stock, RestockLog restocks, Baton baton) {
        this.properties = properties;
        this.stock = stock;
        this.restocks = restocks;
        this.instance = baton.instanceId();
        this.clock = Clock.systemUTC();
    }

    /**
     * Tops the catalogue up and records the run; skipped (returns at once) on the instances that do not get the
     * lock. Each item is written under its own lock, as purchases are.
     */
    @Scheduled(cron = "${sale.restock.cron:0 0 3 * * *}")
    @DistributedLock(key = "'restock'", waitTime = "0", minHoldTime = "${sale.restock.min-hold:PT1M}",
            whenNotAcquired = WhenNotAcquired.SKIP)
    public void restock() {
        Instant started = clock.instant();
        // Read before the item locks below make theirs the current token of this thread.
        long token = LockContext.currentFencingToken();
        for (Map.Entry<String, Long> item : properties.getCatalog().entrySet()) {
            stock.topUp(item.getKey(), item.getValue());
        }
        restocks.append(new RestockRecord(instance, started, token));
        log.info("Restocked {} items (restock fencing token {})", properties.getCatalog().size(), token);
    }
}
