package dev.baton.sale;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The body of an administrator's stock change.
 *
 * @param stock the new stock, at least 0
 */
@Schema(description = "New stock of an item")
public record StockUpdate(@Schema(description = "Units in stock", example = "100", minimum = "0") long stock) {
}
