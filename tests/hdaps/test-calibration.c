/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service/hdaps/calibration.h: the deferred calibration both backends share. */

#include "calibration.h"
#include "test-helpers.h"

TEST(test_deferred)
{
        HdapsState s = {.rest_x = 5, .rest_y = 6};

        CHECK(calibration_has_rest(&s));
        CHECK(!calibration_readout(&s, 100, 200)); /* not armed: a readout changes nothing */
        CHECK_EQ(s.rest_x, 5);
        CHECK_EQ(s.rest_y, 6);

        calibration_request(&s);
        CHECK(!calibration_has_rest(&s));
        CHECK(calibration_readout(&s, 100, 200)); /* the next readout is the rest */
        CHECK(calibration_has_rest(&s));
        CHECK_EQ(s.rest_x, 100);
        CHECK_EQ(s.rest_y, 200);
        CHECK(!calibration_readout(&s, 1, 2)); /* once */
        CHECK_EQ(s.rest_x, 100);

        calibration_request(&s);
        calibration_set_rest(&s, -498, -439); /* a known rest disarms the request */
        CHECK(calibration_has_rest(&s));
        CHECK(!calibration_readout(&s, 1, 2));
        CHECK_EQ(s.rest_x, -498);
        CHECK_EQ(s.rest_y, -439);
}

TEST(test_negate)
{
        HdapsState s = {.x = 10, .y = -20};

        calibration_set_rest(&s, 3, -4);
        calibration_negate(&s);
        CHECK_EQ(s.x, -10);
        CHECK_EQ(s.y, 20);
        CHECK_EQ(s.rest_x, -3); /* a known rest follows the axes */
        CHECK_EQ(s.rest_y, 4);

        calibration_request(&s);
        s.rest_x = 7;
        calibration_negate(&s);
        CHECK_EQ(s.x, 10);
        CHECK_EQ(s.rest_x, 7); /* armed: the rest is not known yet and stays as it is */
        CHECK(!calibration_has_rest(&s));
}

int main(void)
{
        RUN(test_deferred);
        RUN(test_negate);
        return test_summary();
}
