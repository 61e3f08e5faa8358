" SPDX-License-Identifier: GPL-3.0-or-later
" The mail buffer: new mail, replies (headers from `maildex reply --format=json`, the original quoted
" as notmuch.el quotes it), forwards, drafts resumed. :MaildexSend pipes it to g:maildex_sendmail and
" then files the sent copy with `maildex insert` in the sent folder (maildex#folders), and tags the
" replied-to message +replied. :write saves it as a draft: `maildex insert` into the drafts folder
" with +draft; the draft saved before goes from the disk and the store (`maildex purge`) once the
" new one is in, and the last one once the message is sent and filed. `Attach: FILE` header lines
" (:MaildexAttach) become attachments when it is sent. Every failure is reported as an error (the
" transport's, or maildex#error#note), never followed by words of success.
let s:cpo_save = &cpo
set cpo&vim

let s:count = 0

function! s:open(headers, body, meta) abort
  let s:count += 1
  call maildex#util#open_buffer('maildex://compose/' . s:count, 'mail.maildexcompose')
  " written by the plugin, not to a file: :write saves a draft
  setlocal modifiable buftype=acwrite bufhidden=hide
  augroup maildex_compose
    autocmd! * <buffer>
    autocmd BufWriteCmd <buffer> call maildex#compose#write()
  augroup END
  let b:maildex_compose = extend({'sent': 0, 'draft': '', 'replied': ''}, a:meta)
  let l:lines = []
  for [l:name, l:value] in a:headers
    call add(l:lines, l:name . ': ' . l:value)
  endfor
  call maildex#util#set_lines(bufnr('%'), 1, l:lines + [''] + a:body, 1)
  setlocal modifiable nomodified
  let l:to = match(l:lines, '^To: $')
  call cursor(l:to >= 0 ? l:to + 1 : len(l:lines) + 2, l:to >= 0 ? 5 : 1)
  call maildex#address#harvest()
endfunction

" :MaildexCompose [TO]: a new message from the user's address.
function! maildex#compose#new(...) abort
  let l:to = get(a:, 1, '')
  call maildex#config#with({config -> s:open([['From', maildex#config#from(config)], ['To', l:to],
        \ ['Cc', ''], ['Subject', '']], [''], {})})
endfunction

" A reply to the one message QUERY names; ALL answers everybody (reply-all), else the sender.
function! maildex#compose#reply(query, all) abort
  call maildex#transport#run(['reply', '--format=json', '--format-version=5',
        \ '--reply-to=' . (a:all ? 'all' : 'sender'), a:query],
        \ {'on_exit': function('s:replying', [a:query])})
endfunction

function! s:replying(query, status, out, err) abort
  let l:reply = maildex#util#json(a:out)
  if a:status != 0 " the transport has reported it
    return
  elseif type(l:reply) != type({})
    return maildex#error#note('maildex reply printed no reply for ' . a:query)
  endif
  let l:h = get(l:reply, 'reply-headers', {})
  let l:headers = []
  for l:name in ['From', 'To', 'Cc', 'Bcc', 'Subject', 'In-reply-to', 'References']
    if has_key(l:h, l:name) || l:name ==# 'To'
      call add(l:headers, [l:name ==# 'In-reply-to' ? 'In-Reply-To' : l:name, maildex#util#str(get(l:h, l:name, ''))])
    endif
  endfor
  let l:original = get(l:reply, 'original', {})
  let l:from = maildex#util#str(get(get(l:original, 'headers', {}), 'From', ''))
  let l:date = maildex#util#str(get(get(l:original, 'headers', {}), 'Date', ''))
  let l:body = ['On ' . l:date . ', ' . substitute(l:from, '\s*<[^>]*>$', '', '') . ' wrote:']
  for l:line in s:plain_text(get(l:original, 'body', []))
    call add(l:body, l:line ==# '' ? '>' : '> ' . l:line)
  endfor
  call s:open(l:headers, l:body + [''], {'replied': get(l:original, 'id', '')})
endfunction

" The text/plain parts of a body, as lines (what a reply quotes).
function! s:plain_text(parts) abort
  let l:lines = []
  for l:part in a:parts
    let l:content = get(l:part, 'content', v:null)
    if type(l:content) == type([])
      call extend(l:lines, s:plain_text(l:content))
    elseif type(l:content) == type('') && tolower(get(l:part, 'content-type', '')) ==# 'text/plain'
      let l:text = split(l:content, "\n", 1)
      if !empty(l:text) && l:text[-1] ==# ''
        call remove(l:text, -1)
      endif
      call extend(l:lines, l:text)
    endif
  endfor
  return l:lines
endfunction

" A forward of MSG with its text as the thread shows it (TEXT, the lines below its header line).
function! maildex#compose#forward(msg, text) abort
  let l:subject = maildex#util#str(get(get(a:msg, 'headers', {}), 'Subject', ''))
  let l:from = maildex#util#str(get(get(a:msg, 'headers', {}), 'From', ''))
  let l:indent = matchstr(get(a:text, 0, ''), '^\s*')
  let l:body = ['', '-------------------- Start of forwarded message --------------------', 'From: ' . l:from]
        \ + map(copy(a:text), 'substitute(v:val, "^" . l:indent, "", "")')
        \ + ['-------------------- End of forwarded message --------------------']
  call maildex#config#with({config -> s:open([['From', maildex#config#from(config)], ['To', ''],
        \ ['Cc', ''], ['Subject', '[' . substitute(l:from, '\s*<[^>]*>$', '', '') . '] ' . l:subject]],
        \ l:body, {})})
endfunction

" :MaildexSend: the buffer as a message, to sendmail, then filed and marked.
function! maildex#compose#send() abort
  if !exists('b:maildex_compose')
    return maildex#error#note(':MaildexSend works in a mail buffer')
  endif
  let l:message = maildex#message#build(getline(1, '$'))
  if has_key(l:message, 'error')
    return maildex#error#note(l:message.error)
  endif
  let l:state = b:maildex_compose
  let l:state.buf = bufnr('%')
  let l:sendmail = get(g:, 'maildex_sendmail', ['sendmail', '-t', '-oi'])
  call maildex#transport#run([], {'command': type(l:sendmail) == type([]) ? l:sendmail : [l:sendmail],
        \ 'stdin': l:message.text, 'on_exit': function('s:sent', [l:state, l:message.text])})
  echomsg 'Sending...'
endfunction

function! s:sent(state, message, status, out, err) abort
  if a:status != 0 " the transport has reported sendmail's error; the buffer stays to try again
    return
  endif
  let a:state.sent = 1
  call maildex#config#with(function('s:file', ['sent', a:message, function('s:filed', [a:state])]))
  if a:state.replied !=# ''
    call maildex#tag#apply(get(g:, 'maildex_replied_tags', ['+replied']),
          \ maildex#util#term('id', a:state.replied), function('s:noop'))
  endif
  call s:close(a:state)
  echomsg 'Message sent'
endfunction

" The sent copy is filed, or nothing was to be filed (g:maildex_fcc ''): the draft it was written
" from goes. When filing failed (reported) the draft stays: it is the only copy left here.
function! s:filed(state, status, folder, reason) abort
  if a:status != 1
    call s:forget_draft(a:state)
  endif
endfunction

" Files MESSAGE with `maildex insert` where KIND ('sent', 'drafts') goes (maildex#folders), then
" calls DONE(status, folder, reason): status 0 filed in FOLDER; 1 not filed, for REASON (already
" reported as an error); -1 nothing to file (the setting is empty).
function! s:file(kind, message, done, config) abort
  let l:where = maildex#folders#insert(a:kind, a:config)
  if has_key(l:where, 'error')
    call maildex#error#note((a:kind ==# 'sent' ? 'the sent copy was not filed: ' : 'the draft was not saved: ') . l:where.error)
    return a:done(1, '', l:where.error)
  elseif empty(l:where)
    return a:done(-1, '', '')
  endif
  call maildex#transport#run(l:where.argv, {'stdin': a:message,
        \ 'on_exit': function('s:inserted', [l:where.folder, a:done])})
endfunction

function! s:inserted(folder, done, status, out, err) abort
  if a:status == 0
    return a:done(0, a:folder, '')
  endif
  call a:done(1, '', printf('maildex insert failed (exit status %d)%s', a:status, empty(a:err) ? '' : ': ' . a:err[0]))
endfunction

function! s:close(state) abort
  if bufexists(a:state.buf)
    call setbufvar(a:state.buf, '&modified', 0)
    let l:win = bufwinid(a:state.buf)
    if l:win != -1
      call win_execute(l:win, 'call maildex#util#close()')
    endif
  endif
endfunction

" :write: the buffer saved as a draft, waiting (10 s at most) for it to be in, as writing a file
" does. A draft that is not in makes :write fail as Vim's own writes fail (an error, the buffer
" still 'modified'), so :wq, :x and ZZ close a buffer only once its draft is safe.
function! maildex#compose#write() abort
  let l:error = maildex#compose#save_draft(0)
  let l:state = get(b:, 'maildex_compose', {})
  let l:start = reltime()
  while l:error ==# '' && get(l:state, 'saving', 0) && reltimefloat(reltime(l:start)) < 10.0
    sleep 10m
  endwhile
  if l:error ==# '' && get(l:state, 'saving', 0)
    let l:error = 'maildex insert has not answered in 10 seconds'
  elseif l:error ==# ''
    let l:error = get(l:state, 'save_error', '')
  endif
  if l:error !=# ''
    echoerr 'maildex: the draft was not saved: ' . l:error
  endif
endfunction

" The buffer saved as a draft (CLOSE: and closed then, CTRL-C CTRL-P), without waiting. Returns
" why it could not start ('' when it did); how it ended is b:maildex_compose.save_error.
function! maildex#compose#save_draft(close) abort
  if !exists('b:maildex_compose')
    return 'drafts are saved from a mail buffer'
  endif
  let l:draft = maildex#message#draft(getline(1, '$'))
  if has_key(l:draft, 'error')
    return l:draft.error
  endif
  let l:state = b:maildex_compose
  let l:state.buf = bufnr('%')
  let l:state.saving = 1
  let l:state.save_error = ''
  let l:Done = function('s:draft_saved', [l:state, l:draft.id, b:changedtick, a:close])
  call maildex#config#with(function('s:file', ['drafts', l:draft.text, l:Done]))
  return ''
endfunction

" CTRL-C CTRL-P: saved as a draft and closed (the buffer stays when the draft could not be saved).
function! maildex#compose#postpone() abort
  let l:error = maildex#compose#save_draft(1)
  if l:error !=# ''
    call maildex#error#note('the draft was not saved: ' . l:error)
  endif
endfunction

function! s:draft_saved(state, id, tick, close, status, folder, reason) abort
  let a:state.saving = 0
  if a:status == -1
    let a:state.save_error = 'g:maildex_drafts is empty: drafts are not saved'
    return maildex#error#note(a:state.save_error)
  elseif a:status != 0
    let a:state.save_error = a:reason
    return
  endif
  call s:forget_draft(a:state)
  let a:state.draft = a:id
  if bufexists(a:state.buf) && getbufvar(a:state.buf, 'changedtick') == a:tick
    call setbufvar(a:state.buf, '&modified', 0)
  endif
  if a:close
    call s:close(a:state)
  endif
  echomsg 'Draft saved in ' . a:folder
endfunction

" The draft saved before goes once a newer one is in or the message is sent: its files are removed
" from the disk and its message from the store by `maildex purge` (which keeps its tags in the purge
" log), so the drafts folder holds one copy of each message being written, as notmuch.el's does.
function! s:forget_draft(state) abort
  if a:state.draft !=# ''
    call maildex#transport#run(['purge', '--yes', '--', maildex#util#term('id', a:state.draft)], {})
    let a:state.draft = ''
  endif
endfunction

" e in a thread, a tree or a list: the draft ID in a mail buffer again, as notmuch.el's
" notmuch-draft-resume does it: a message without the draft tag only when the user says so; the
" stored text without the headers saving added; the draft's id kept, so saving again or sending
" removes this one.
function! maildex#compose#resume(id, tags) abort
  let l:draft = index(a:tags, 'draft') >= 0
  if !l:draft && confirm('Message does not appear to be a draft: edit as new?', "&Yes\n&No", 2) != 1
    return
  endif
  call maildex#transport#run(['show', '--format=raw', maildex#util#term('id', a:id)],
        \ {'on_exit': function('s:resuming', [a:id, l:draft])})
endfunction

function! s:resuming(id, draft, status, out, err) abort
  if a:status != 0 " the transport has reported it
    return
  elseif empty(a:out)
    return maildex#error#note('maildex show printed nothing for id:' . a:id . ': no draft to resume')
  endif
  let [l:headers, l:body] = maildex#message#resume(a:out)
  let l:reply = filter(copy(l:headers), 'tolower(v:val[0]) ==# "in-reply-to"')
  call s:open(l:headers, l:body, {'draft': a:draft ? a:id : '',
        \ 'replied': empty(l:reply) ? '' : matchstr(l:reply[0][1], '<\zs[^>]*\ze>')})
endfunction

" :MaildexAttach FILE...: an `Attach: FILE` line after the headers for each (its absolute path).
function! maildex#compose#attach(...) abort
  if !exists('b:maildex_compose')
    return maildex#error#note(':MaildexAttach works in a mail buffer')
  endif
  for l:file in a:000
    let l:path = fnamemodify(expand(l:file), ':p')
    if !filereadable(l:path)
      call maildex#error#note('cannot attach ' . l:file . ': no such file, or not readable')
      continue
    endif
    let l:end = index(getline(1, '$'), '')
    call append(l:end < 0 ? line('$') : l:end, 'Attach: ' . l:path)
  endfor
endfunction

" CTRL-C CTRL-A: asks for the file (completing file names).
function! maildex#compose#attach_prompt() abort
  let l:file = input('Attach file: ', '', 'file')
  if l:file !=# ''
    call maildex#compose#attach(l:file)
  endif
endfunction

function! s:noop(...) abort
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
