// An axis ticker for data plotted in px that labels it in a physical unit: ticks at round
// numbers of the unit (factor = unit per px), placed at their px positions.
#pragma once

#include <qcustomplot.h>

namespace xcorr::ui {

class ScaledTicker : public QCPAxisTicker {
 public:
  explicit ScaledTicker(double factor) : factor_(factor) {}

 protected:
  void generate(const QCPRange& range, const QLocale& locale, QChar format, int precision,
                QVector<double>& ticks, QVector<double>* sub_ticks,
                QVector<QString>* labels) override {
    QCPAxisTicker::generate(QCPRange(range.lower * factor_, range.upper * factor_), locale, format,
                            precision, ticks, sub_ticks, labels);
    for (double& t : ticks) t /= factor_;  // the labels stay in the unit
    if (sub_ticks != nullptr)
      for (double& t : *sub_ticks) t /= factor_;
  }

 private:
  double factor_;
};

}  // namespace xcorr::ui
