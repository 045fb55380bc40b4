package dev.baton.sale;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code sale.*} properties: the catalogue of items that are seeded at startup and topped up by the restock.
 * (The restock schedule and the buyer limit's period are placeholders in the annotations, see {@link RestockJob}
 * and {@link ItemController}.) Mutable while bound, read-only afterwards.
 */
@ConfigurationProperties(prefix = "sale")
public class SaleProperties {

    /**
     * Items of the catalogue and the stock each is seeded with when absent and topped up to by the restock. Items
     * created through the admin endpoint are not in it, so the restock leaves them alone.
     */
    private Map<String, Long> catalog = new LinkedHashMap<>();

    /** @return the catalogue: item name to its full stock */
    public Map<String, Long> getCatalog() {
        return catalog;
    }

    /** @param catalog the catalogue: item name to its full stock */
    public void setCatalog(Map<String, Long> catalog) {
        this.catalog = catalog;
    }
}
