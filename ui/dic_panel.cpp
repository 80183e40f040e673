#include "ui/dic_panel.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

namespace xcorr::ui {
namespace {

QSpinBox* spin(int lo, int hi, const QString& suffix) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setSuffix(suffix);
  return s;
}

QComboBox* combo(const QStringList& items) {
  auto* c = new QComboBox;
  c->addItems(items);
  return c;
}

}  // namespace

DicPanel::DicPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  subset_ = spin(1, 401, " px");
  step_ = spin(1, 400, " px");
  radius_ = spin(0, 500, " px");
  iterations_ = spin(1, 1000, "");
  convergence_ = new QDoubleSpinBox;
  convergence_->setDecimals(5);
  convergence_->setRange(1e-5, 1);
  convergence_->setSingleStep(1e-4);
  convergence_->setSuffix(" px");
  min_zncc_ = new QDoubleSpinBox;
  min_zncc_->setRange(-1, 1);
  min_zncc_->setSingleStep(0.05);
  shape_ = combo({"first", "second"});
  propagation_ = combo({"independent", "reliability"});
  stack_ = combo({"reference", "incremental"});
  update_ = spin(0, 100000, " frames");
  window_ = spin(1, 99, " points");
  strain_ = combo({"green_lagrange", "engineering"});
  device_ = combo({"auto", "cpu", "gpu"});
  form->addRow(tr("Subset"), subset_);
  form->addRow(tr("Step"), step_);
  form->addRow(tr("Search radius"), radius_);
  form->addRow(tr("Shape function"), shape_);
  form->addRow(tr("Propagation"), propagation_);
  form->addRow(tr("Stack mode"), stack_);
  form->addRow(tr("Reference update"), update_);
  form->addRow(tr("Max iterations"), iterations_);
  form->addRow(tr("Convergence"), convergence_);
  form->addRow(tr("Min ZNCC"), min_zncc_);
  form->addRow(tr("Strain window"), window_);
  form->addRow(tr("Strain"), strain_);
  form->addRow(tr("Device"), device_);
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setStyleSheet("color: #d33");
  form->addRow(message_);
  set_options(dic::DicOptions{});
  for (auto* s : {subset_, step_, radius_, iterations_, update_, window_})
    connect(s, &QSpinBox::valueChanged, this, [this] { validate(); });
  for (auto* s : {convergence_, min_zncc_})
    connect(s, &QDoubleSpinBox::valueChanged, this, [this] { validate(); });
  for (auto* c : {shape_, propagation_, stack_, strain_, device_})
    connect(c, &QComboBox::currentIndexChanged, this, [this] { validate(); });
}

dic::DicOptions DicPanel::options() const {
  dic::DicOptions o;
  o.subset = subset_->value();
  o.step = step_->value();
  o.search_radius = radius_->value();
  o.max_iterations = iterations_->value();
  o.convergence = convergence_->value();
  o.min_zncc = min_zncc_->value();
  o.shape = *dic::parse_shape_function(shape_->currentText().toStdString());
  o.propagation = *dic::parse_propagation(propagation_->currentText().toStdString());
  o.stack_mode = *dic::parse_stack_mode(stack_->currentText().toStdString());
  o.reference_update = update_->value();
  o.strain_window = window_->value();
  o.strain = *dic::parse_strain_kind(strain_->currentText().toStdString());
  o.device = device_->currentText().toStdString();
  return o;
}

void DicPanel::set_options(const dic::DicOptions& o) {
  subset_->setValue(o.subset);
  step_->setValue(o.step);
  radius_->setValue(o.search_radius);
  iterations_->setValue(o.max_iterations);
  convergence_->setValue(o.convergence);
  min_zncc_->setValue(o.min_zncc);
  shape_->setCurrentText(dic::to_string(o.shape));
  propagation_->setCurrentText(dic::to_string(o.propagation));
  stack_->setCurrentText(dic::to_string(o.stack_mode));
  update_->setValue(o.reference_update);
  window_->setValue(o.strain_window);
  strain_->setCurrentText(dic::to_string(o.strain));
  device_->setCurrentText(QString::fromStdString(o.device));
  validate();
}

bool DicPanel::valid() const {
  return options().check().is_ok();
}

void DicPanel::validate() {
  const Status s = options().check();
  message_->setText(s.is_ok() ? QString() : QString::fromStdString(s.message()));
  emit changed();
}

}  // namespace xcorr::ui
