package dev.baton.sale;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

import java.util.Map;

/**
 * Creates the catalogue's items with their full stock at startup, leaving items that exist alone, so that a new
 * instance joining a running fleet changes nothing.
 */
@Component
public class CatalogSeeder implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(CatalogSeeder.class);

    private final SaleProperties properties;
    private final StockStore store;

    /**
     * @param properties the catalogue
     * @param store      where the stock lives
     */
    public CatalogSeeder(SaleProperties properties, StockStore store) {
        this.properties = properties;
        this.store = store;
    }

    /**
     * Seeds the items that are absent.
     *
     * @param args ignored
     */
    @Override
    public void run(ApplicationArguments args) {
        for (Map.Entry<String, Long> item : properties.getCatalog().entrySet()) {
            if (store.seed(item.getKey(), item.getValue())) {
                log.info("Seeded {} with a stock of {}", item.getKey(), item.getValue());
            }
        }
    }
}
