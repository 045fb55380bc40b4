package dev.baton.sale;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * What a successful purchase returns.
 *
 * @param orderId      a new random order id
 * @param item         the item bought
 * @param user         the buyer
 * @param remaining    the item's stock after this purchase
 * @param fencingToken the fencing token of the item's lock under which the stock was written
 */
@Schema(description = "Receipt of a successful purchase")
public record Receipt(
        @Schema(description = "Order id", example = "3f0c6a9e-5b1d-4c1e-9a57-0d4f1f9a6b21") String orderId,
        @Schema(description = "Item bought", example = "widget") String item,
        @Schema(description = "Buyer", example = "alice") String user,
        @Schema(description = "Stock left after this purchase", example = "99") long remaining,
        @Schema(description = "Fencing token of the item's lock for this write", example = "17") long fencingToken) {

    /**
     * The receipt as one line of the item's purchase records in Redis.
     *
     * @return {@code orderId user remaining fencingToken}, separated by spaces
     */
    String asRecord() {
        return orderId + " " + user + " " + remaining + " " + fencingToken;
    }
}
