// The window's undoable edits (QUndoStack commands): an ROI before and after, and any edit given
// as its two directions.
#pragma once

#include <QUndoCommand>
#include <functional>
#include <utility>

#include "core/dic/roi.hpp"

namespace xcorr::ui {

class RoiCommand : public QUndoCommand {
 public:
  RoiCommand(const QString& text, dic::Roi before, dic::Roi after,
             std::function<void(const dic::Roi&)> apply)
      : QUndoCommand(text),
        before_(std::move(before)),
        after_(std::move(after)),
        apply_(std::move(apply)) {}
  void undo() override { apply_(before_); }
  void redo() override { apply_(after_); }

 private:
  dic::Roi before_, after_;
  std::function<void(const dic::Roi&)> apply_;
};

class LambdaCommand : public QUndoCommand {
 public:
  LambdaCommand(const QString& text, std::function<void()> undo, std::function<void()> redo)
      : QUndoCommand(text), undo_(std::move(undo)), redo_(std::move(redo)) {}
  void undo() override { undo_(); }
  void redo() override { redo_(); }

 private:
  std::function<void()> undo_, redo_;
};

}  // namespace xcorr::ui
